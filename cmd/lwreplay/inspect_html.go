package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/timeline"
)

// writeTimeline writes the timeline of h, built from files, to path as
// one HTML page; nothing when path is "".
func writeTimeline(path string, h *history.History, files []*cassette.File) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("inspect --html: %w", err)
	}
	w := bufio.NewWriter(f)
	t := timeline.FromCassettes(files, h, "lwreplay timeline: "+strings.Join(h.Files, ", "))
	err = timeline.Write(w, t, h.Order())
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("inspect --html: %s: %w", path, err)
	}
	return nil
}
