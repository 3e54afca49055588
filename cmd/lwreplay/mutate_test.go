package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

const realWatchList = "../../cassettes/real-configmaps-pods-watchlist.yaml"

// TestMutateStorm runs lwreplay mutate under a plan that closes every
// watch after 5 events, in real time: with WatchList client-go restarts
// each stream cut in its initial events at once (kubernetes/kubernetes#140890),
// and the command stops it; with LIST and WATCH it writes a reproducer.
func TestMutateStorm(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  []string // parts of stderr
	}{
		{"mutate - close-watch:after=5, WatchList - storm, no file - fail",
			[]string{"--fault", "close-watch:after=5"}, 1,
			[]string{"the reference client stormed the replay: ", "WatchList requests for ", "each ending before initial-events-end; no progress", "no reproducer written", "kubernetes/kubernetes#140890", "--watchlist off"}},
		{"mutate - close-watch:after=5,from=0, WatchList - storm, no file - fail",
			[]string{"--fault", "close-watch:after=5,from=0", "--watchlist", "auto"}, 1,
			[]string{"the reference client stormed the replay: ", "no reproducer written"}},
		{"mutate - close-watch:after=5, LIST and WATCH - reproducer - pass",
			[]string{"--fault", "close-watch:after=5", "--watchlist", "off"}, 0, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.wantCode != 0 {
				testutil.RequireWatchList(t)
			}
			dir := t.TempDir()
			out := filepath.Join(dir, "m.yaml")
			start := time.Now()
			code, stdout, stderr := runCLI(append(append([]string{"mutate"}, tt.args...), "-o", out, realWatchList)...)
			if took := time.Since(start); took > 30*time.Second {
				t.Errorf("run time: got %s, want at most 30s", took)
			}
			if code != tt.wantCode {
				t.Fatalf("exit code: got %d, want %d; stderr %s", code, tt.wantCode, stderr)
			}
			for _, want := range tt.wantErr {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr: got %q, want it to contain %q", stderr, want)
				}
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			if tt.wantCode != 0 {
				if len(entries) != 0 {
					t.Errorf("output directory: got %d files (%s...), want none", len(entries), entries[0].Name())
				}
				return
			}
			if !strings.Contains(stdout, "wrote [") {
				t.Errorf("stdout: got %q, want the files written", stdout)
			}
			files, err := cassette.LoadAll(out)
			if err != nil || !cassette.IsVerbatim(files...) {
				t.Errorf("reproducer: got error %v (verbatim %v), want a verbatim cassette that loads", err, cassette.IsVerbatim(files...))
			}
		})
	}
}
