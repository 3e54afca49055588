package mutate

import (
	"context"
	"net/url"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/recorder/capture"
)

// sharedReproducers holds the project's regression reproducers
// (testdata/README.md).
const sharedReproducers = "../testdata/reproducers/"

// TestSharedReproducersReplayVerbatim checks the shared reproducers that
// lwreplay mutate wrote. Each loads, every interaction is marked verbatim,
// and its traffic builds a history. The reference client run against it is
// sent exactly the recorded answers, every one of them. (A fuzz report's
// reproducer holds its target's traffic only, without the discovery
// answers the reference client asks for first. The fuzz package replays
// those to its targets.)
func TestSharedReproducersReplayVerbatim(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		file string
	}{
		{"reproducer - tombstone plan, reference client - replays the same - pass", "tombstone_mutate.yaml"},
		{"reproducer - opaque resourceVersions, reference client - replays the same - pass", "opaque_rv.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := cassette.LoadAll(sharedReproducers + tt.file)
			if err != nil {
				t.Fatalf("LoadAll: got error %v, want none", err)
			}
			if !cassette.IsVerbatim(files...) {
				t.Fatalf("IsVerbatim: got false, want every interaction marked %q", cassette.ReplayVerbatim)
			}
			if _, err := history.Build(files...); err != nil {
				t.Fatalf("Build: got error %v, want none", err)
			}
			dir := t.TempDir()
			synctest.Test(t, func(t *testing.T) {
				again, err := Replay(context.Background(), files, filepath.Join(dir, "again.yaml"),
					Options{WatchList: recordedWatchList(files), Timeout: 10 * time.Minute, Settle: time.Minute})
				if err != nil {
					t.Fatalf("Replay: got error %v, want none", err)
				}
				var want []cassette.Interaction
				for _, f := range files {
					want = append(want, f.Interactions...)
				}
				checkSameAnswers(t, byRequest(t, loadAll(t, again.Files)), byRequest(t, want))
			})
		})
	}
}

// recordedWatchList is the WatchList mode of the client that recorded
// files: on when a request asked for initial events.
func recordedWatchList(files []*cassette.File) capture.WatchListMode {
	for _, f := range files {
		for _, i := range f.Interactions {
			if u, err := url.Parse(i.URL); err == nil && u.Query().Get("sendInitialEvents") == "true" {
				return capture.WatchListOn
			}
		}
	}
	return capture.WatchListOff
}
