package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/lwreplay/lwreplay/recorder"
	"github.com/lwreplay/lwreplay/recorder/capture"
)

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// progressLine renders one line of live progress.
func progressLine(p capture.Progress) string {
	synced := 0
	for _, r := range p.Resources {
		if r.Synced {
			synced++
		}
	}
	s := p.Stats
	line := fmt.Sprintf("recording %d/%d synced: %d objects, %d events, %d bookmarks, %s, %s",
		synced, len(p.Resources), s.Objects, s.Events, s.Bookmarks, formatBytes(s.Bytes), p.Elapsed.Truncate(time.Second))
	if s.Errors > 0 {
		line += fmt.Sprintf(", %d errors", s.Errors)
	}
	for _, r := range p.Resources {
		if r.LastError != "" {
			msg := r.LastError
			if len(msg) > 100 {
				msg = msg[:100] + "..."
			}
			line += fmt.Sprintf("; %s: %s", r.Target, msg)
			break
		}
	}
	return line
}

// writeSummary prints what a recording captured.
func writeSummary(w io.Writer, output string, p capture.Progress, s recorder.Stats) {
	files := s.Files
	if len(files) == 0 {
		files = []string{output}
	}
	fmt.Fprintf(w, "recorded %s to %s\n", p.Elapsed.Truncate(time.Millisecond), strings.Join(files, ", "))
	for _, r := range p.Resources {
		state := "not synced"
		if r.Synced {
			state = "synced"
		}
		fmt.Fprintf(w, "  %s: %d objects, %s, resourceVersion %q", r.Target, r.Objects, state, r.LastSyncRV)
		if r.LastError != "" {
			fmt.Fprintf(w, ", last error: %s", r.LastError)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d interactions: %d list pages, %d watches; %d objects, %d events, %d bookmarks, %d errors; %s\n",
		s.Interactions, s.ListPages, s.Watches, s.Objects, s.Events, s.Bookmarks, s.Errors, formatBytes(s.Bytes))
	if s.PartialFrames > 0 {
		fmt.Fprintf(w, "%d incomplete frames dropped at the cut\n", s.PartialFrames)
	}
}

// formatBytes renders n bytes as "512 B", "1.5 KiB", "3.2 MiB".
func formatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, suffix := float64(n)/unit, "KiB"
	for _, s := range []string{"MiB", "GiB", "TiB"} {
		if v < unit {
			break
		}
		v, suffix = v/unit, s
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}
