package mutate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/internal/testutil"
	"github.com/lwreplay/lwreplay/recorder/capture"
)

// dirFiles lists the names in dir.
func dirFiles(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestMutateStorm(t *testing.T) {
	t.Parallel()
	files, err := cassette.LoadAll(realCassette)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		plan    string
		mode    capture.WatchListMode
		opts    Options
		wantErr error  // nil: a reproducer
		wantMsg string // part of the error
	}{
		{"mutate - every watch closed after 5 events, WatchList - storm, no file - fail",
			"close-watch:after=5", capture.WatchListAuto, Options{}, ErrStorm,
			"WatchList requests for "},
		{"mutate - every watch from point 0 closed after 5 events, WatchList - storm, no file - fail",
			"close-watch:after=5,from=0", capture.WatchListAuto, Options{}, ErrStorm,
			"each ending before initial-events-end; no progress"},
		{"mutate - every watch closed after 5 events, LIST and WATCH - reproducer - pass",
			"close-watch:after=5", capture.WatchListOff, Options{}, nil, ""},
		{"mutate - every watch closed after 5 events, LIST and WATCH, storm limit 1 an hour - re-watches gain events - pass",
			"close-watch:after=5", capture.WatchListOff, Options{StormLimit: 1, StormWindow: time.Hour}, nil, ""},
		{"mutate - every watch closed at open, LIST and WATCH, storm limit 1 an hour - storm - fail",
			"close-watch:after=0", capture.WatchListOff, Options{StormLimit: 1, StormWindow: time.Hour}, ErrStorm,
			"(1 LIST, 1 WATCH)"},
		{"mutate - not settled by the timeout - no file - fail",
			"", capture.WatchListAuto, Options{Timeout: time.Second, Settle: time.Minute}, ErrNotSettled, "within 1s: configmaps.v1: synced at rv "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.mode != capture.WatchListOff {
				testutil.RequireWatchList(t)
			}
			dir := t.TempDir()
			out := filepath.Join(dir, "m.yaml")
			synctest.Test(t, func(t *testing.T) {
				o := tt.opts
				o.WatchList = tt.mode
				if tt.plan != "" {
					o.Plan = mustPlan(t, tt.plan)
				}
				if o.Timeout == 0 {
					o.Timeout = 10 * time.Minute
				}
				res, err := Run(context.Background(), files, out, o)
				if tt.wantErr == nil {
					if err != nil {
						t.Fatalf("Run: got error %v, want none", err)
					}
					repro, err := cassette.LoadAll(res.Files...)
					if err != nil || !cassette.IsVerbatim(repro...) {
						t.Fatalf("reproducer %v: got error %v (verbatim %v), want a verbatim cassette", res.Files, err, cassette.IsVerbatim(repro...))
					}
					return
				}
				if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
					t.Fatalf("Run: got error %v, want %v saying %q", err, tt.wantErr, tt.wantMsg)
				}
				if len(res.Files) != 0 {
					t.Errorf("Result.Files: got %v, want none", res.Files)
				}
				if got := dirFiles(t, dir); len(got) != 0 {
					t.Errorf("output directory: got %v, want no file", got)
				}
			})
		})
	}
}

func TestRemoveAll(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "m.yaml"), filepath.Join(dir, "m_001.yaml")
	for _, p := range []string{a, b} {
		if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := removeAll([]string{a, b, filepath.Join(dir, "gone.yaml")}); err != nil {
		t.Errorf("removeAll - written, rotated and missing files - pass: got error %v, want none", err)
	}
	if got := dirFiles(t, dir); len(got) != 0 {
		t.Errorf("removeAll - written, rotated and missing files - pass: got %v left, want none", got)
	}
}
