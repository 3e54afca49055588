package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

const realWatchList = "../../cassettes/real-configmaps-pods-watchlist.yaml"

// TestMutateStorm runs lwreplay mutate under a plan that closes every watch
// after 5 events, in real time. With WatchList, client-go restarts each stream
// cut in its initial events at once (kubernetes/kubernetes#140890), and the
// command stops it. With LIST and WATCH, it writes a reproducer. The run is in
// real time, so only what does not depend on its timing is asserted. That is
// the exit code, and the parts of the message that name what the client did
// (not how many requests, of which resource first, in how long). And that no
// file is left. How fast mutate stops a storm is for benchmarks, not tests.
func TestMutateStorm(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  []string // parts of stderr
	}{
		{"mutate - close-watch:after=5, WatchList - storm, no file - fail",
			[]string{"--fault", "close-watch:after=5"}, 1,
			[]string{"the reference client stormed the replay: ", " requests for ", "ending before initial-events-end", "; no progress", "no reproducer written", "kubernetes/kubernetes#140890", "--watchlist off"}},
		{"mutate - close-watch:after=5,from=0, WatchList - storm, no file - fail",
			[]string{"--fault", "close-watch:after=5,from=0", "--watchlist", "auto"}, 1,
			[]string{"the reference client stormed the replay: ", " requests for ", "; no progress", "no reproducer written"}},
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
			code, stdout, stderr := runCLI(append(append([]string{"mutate"}, tt.args...), "-o", out, realWatchList)...)
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
