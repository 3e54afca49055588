package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
)

func runInspect(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("inspect", stderr)
	asJSON := fs.Bool("json", false, "print the summary as JSON")
	htmlOut := fs.String("html", "", "also write a self-contained timeline of the cassettes to this HTML file")
	if err := parse(fs, args); err != nil {
		return err
	}
	files, h, err := loadHistory(fs.Args())
	if err != nil {
		return err
	}
	if err := writeTimeline(*htmlOut, h, files); err != nil {
		return err
	}
	out := inspection{Summary: history.Summarize(h)}
	if cassette.IsVerbatim(files...) {
		r := replayer.DescribeReproducer(files...)
		out.Reproducer = &r
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	if err := out.WriteText(stdout); err != nil {
		return err
	}
	if out.Reproducer != nil {
		_, err = fmt.Fprintf(stdout, "reproducer: replayed verbatim by serve, fuzz and mutate; it answers %s\n", out.Reproducer)
	}
	return err
}

// inspection is what inspect prints: the history's summary and, for a
// reproducer, what it replays for.
type inspection struct {
	history.Summary
	Reproducer *replayer.Reproduction `json:"reproducer,omitempty"`
}

// loadHistory loads cassette files and directories as one history.
func loadHistory(paths []string) ([]*cassette.File, *history.History, error) {
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("%w: name at least one cassette file or directory", errUsage)
	}
	files, err := cassette.LoadAll(paths...)
	if err != nil {
		return nil, nil, err
	}
	h, err := history.Build(files...)
	return files, h, err
}
