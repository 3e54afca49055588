package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

func runInspect(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("inspect", stderr)
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	if err := parse(fs, args); err != nil {
		return err
	}
	h, err := loadHistory(fs.Args())
	if err != nil {
		return err
	}
	s := history.Summarize(h)
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	return s.WriteText(stdout)
}

// loadHistory loads cassette files and directories as one history.
func loadHistory(paths []string) (*history.History, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: name at least one cassette file or directory", errUsage)
	}
	files, err := cassette.LoadAll(paths...)
	if err != nil {
		return nil, err
	}
	return history.Build(files...)
}
