package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
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
	// temp file + rename: a failed write leaves no partial page
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("inspect --html: %s: %w", path, err)
	}
	defer os.Remove(f.Name())
	w := bufio.NewWriter(f)
	t := timeline.FromCassettes(files, h, "lwreplay timeline: "+strings.Join(h.Files, ", "))
	err = timeline.Write(w, t, h.Order())
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("inspect --html: %s: %w", path, err)
	}
	return nil
}
