package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/lwreplay/lwreplay/history"
)

// runInspect describes each recording the cassettes hold: one summary per
// recording (one JSON document each with --json), as each loads alone.
func runInspect(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("inspect", stderr)
	asJSON := fs.Bool("json", false, "print each recording's summary as a JSON document")
	salvage := addSalvageFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	recs, err := loadRecordings("inspect", fs.Args(), *salvage, stderr)
	if err != nil {
		return err
	}
	var sums []history.Summary
	for _, r := range recs {
		h, err := history.Build(r.Files...)
		if err != nil {
			return err
		}
		sums = append(sums, history.Summarize(h))
	}
	for k, s := range sums {
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(s); err != nil {
				return err
			}
			continue
		}
		if len(sums) > 1 {
			if k > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "recording %d of %d: %s\n", k+1, len(sums), recs[k].Describe())
		}
		if err := s.WriteText(stdout); err != nil {
			return err
		}
	}
	return nil
}
