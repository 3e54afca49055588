package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/verbatim"
)

// runInspect describes each recording the cassettes hold: one summary per
// recording (one JSON document each with --json), as each loads alone.
func runInspect(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("inspect", stderr)
	asJSON := fs.Bool("json", false, "print each recording's summary as a JSON document")
	salvage := addSalvageFlag(fs)
	htmlOut := fs.String("html", "", "also write a self-contained timeline of the recording to this HTML file (one recording)")
	if err := parse(fs, args); err != nil {
		return err
	}
	recs, err := loadRecordings("inspect", fs.Args(), *salvage, stderr)
	if err != nil {
		return err
	}
	var outs []inspection
	for _, r := range recs {
		h, err := history.Build(r.Files...)
		if err != nil {
			return err
		}
		if len(recs) > 1 && *htmlOut != "" {
			return fmt.Errorf("%w: --html draws one recording, and the files given hold %d (name one)", errUsage, len(recs))
		}
		if err := writeTimeline(*htmlOut, h, r.Files); err != nil {
			return err
		}
		out := inspection{Summary: history.Summarize(h)}
		if cassette.IsVerbatim(r.Files...) {
			d := verbatim.Describe(r.Files...)
			out.Reproducer = &d
		}
		outs = append(outs, out)
	}
	for k, out := range outs {
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			if err := enc.Encode(out); err != nil {
				return err
			}
			continue
		}
		if len(outs) > 1 {
			if k > 0 {
				fmt.Fprintln(stdout)
			}
			fmt.Fprintf(stdout, "recording %d of %d: %s\n", k+1, len(outs), recs[k].Describe())
		}
		if err := out.WriteText(stdout); err != nil {
			return err
		}
		if out.Reproducer != nil {
			if _, err := fmt.Fprintf(stdout, "reproducer: replayed verbatim by serve, fuzz and mutate; it answers %s\n", out.Reproducer); err != nil {
				return err
			}
		}
	}
	return nil
}

// inspection is what inspect prints of a recording: the history's summary
// and, for a reproducer, what it replays for.
type inspection struct {
	history.Summary
	Reproducer *verbatim.Reproduction `json:"reproducer,omitempty"`
}
