package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestShippedCassettes loads every cassette the repository ships, and
// builds its history. It replays each resource through informers
// (WatchList, and LIST then WATCH) in a synctest bubble to the history's
// final state. The recorded request sequence of each real-*.yaml replays
// to the recorded answers. It needs no cluster.
func TestShippedCassettes(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(shipDir, "*.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatalf("cassettes in %s: got none, want the shipped ones", shipDir)
	}
	for _, p := range paths {
		t.Run("shipped cassette - "+filepath.Base(p)+" - loads and replays to its final state - pass", func(t *testing.T) {
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if st.Size() > maxShipSize {
				t.Errorf("size: got %d bytes, want at most %d", st.Size(), maxShipSize)
			}
			files, h, err := loadHistory(p)
			if err != nil {
				t.Fatalf("load and build: got error %v, want none", err)
			}
			for _, f := range files {
				assertNoCredentialHeaders(t, f)
			}
			if len(h.Logs) == 0 {
				t.Fatalf("logs: got none, want at least one")
			}
			checkReplays(t, h, nil)
			if strings.HasPrefix(filepath.Base(p), "real-") {
				// Recorded from a real kube-apiserver (the synthetic ones
				// model one without the watch cache): the recorded requests
				// replay to the recorded answers.
				checkSequence(t, files, h)
			}
		})
	}
}
