package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

// pathRecording is a recording of one client path, named for the tests'
// subtests, written to file.
type pathRecording struct {
	name, file string
	*recording
}

// recordBothPaths starts `lwreplay record` of resources (the --resource
// value), all namespaces, on both client paths. Those are WatchList,
// and LIST in pages of 2 then WATCH, written as <stem>-watchlist.yaml
// and <stem>-list-pages.yaml in outDir. It waits until caughtUp (given
// a recording's path) says each holds the initial state.
func recordBothPaths(t *testing.T, kubeconfig, outDir, stem, resources string, caughtUp func(path string) (bool, string)) []pathRecording {
	t.Helper()
	common := []string{"--resource", resources, "--all-namespaces", "--flush-interval", "200ms"}
	recs := []pathRecording{
		{name: "WatchList (default)", file: stem + "-watchlist.yaml"},
		{name: "LIST pages of 2", file: stem + "-list-pages.yaml"},
	}
	args := [][]string{common, append(append([]string(nil), common...), "--watchlist", "off", "--page-size", "2")}
	for k := range recs {
		recs[k].recording = startRecording(t, kubeconfig, filepath.Join(outDir, recs[k].file), args[k]...)
	}
	for _, r := range recs {
		waitFor(t, r.name+": the recording has the initial state", func() (bool, string) {
			if r.exited() {
				t.Fatalf("%s: lwreplay record exited early: %v\n%s", r.name, r.err, r.output())
			}
			if _, err := os.Stat(r.out); err != nil {
				return false, err.Error()
			}
			return caughtUp(r.out)
		})
	}
	return recs
}

// stopCaughtUp waits until caughtUp says each recording has caught up
// with the cluster, then interrupts it and logs what it printed.
func stopCaughtUp(t *testing.T, recs []pathRecording, caughtUp func(path string) (bool, string)) {
	t.Helper()
	for _, r := range recs {
		waitFor(t, r.name+": the recording has caught up with the cluster", func() (bool, string) { return caughtUp(r.out) })
		r.interrupt(t)
		t.Logf("%s: %s", r.name, strings.TrimSpace(r.output()))
	}
}

// checkRecreatedKey says whether the log shows the object at key deleted,
// then added again with a new UID (a user's recreate under one name).
func checkRecreatedKey(l *history.Log, key string) error {
	var steps []string
	oldUID := ""
	for _, e := range l.Events {
		if e.Object.Key() != key {
			continue
		}
		switch {
		case e.Type == history.Deleted:
			steps = append(steps, "deleted")
			oldUID = e.Object.UID
		case e.Type == history.Added && oldUID != "" && e.Object.UID != oldUID:
			steps = append(steps, "recreated")
		}
	}
	if got := strings.Join(steps, " "); got != "deleted recreated" {
		return fmt.Errorf("%s: got %q, want \"deleted recreated\"", key, got)
	}
	return nil
}
