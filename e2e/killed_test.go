package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// flushWatcher counts the versions of a file it has seen. The recorder
// writes a new file, and renames it over the old one, at every flush.
type flushWatcher struct {
	path     string
	last     os.FileInfo
	versions int
}

// look notes the file's current version.
func (f *flushWatcher) look() {
	st, err := os.Stat(f.path)
	if err != nil {
		return
	}
	if f.last == nil || !os.SameFile(f.last, st) || !st.ModTime().Equal(f.last.ModTime()) || st.Size() != f.last.Size() {
		f.versions++
		f.last = st
	}
}

// eventsIn is a waitFor condition: the cassette holds at least n events
// of the core v1 resource res; it notes file versions as it polls.
func eventsIn(fw *flushWatcher, res string, n int) func() (bool, string) {
	return func() (bool, string) {
		fw.look()
		_, h, err := loadHistory(fw.path)
		if err != nil {
			return false, err.Error()
		}
		l, ok := logOf(h, res)
		if !ok {
			return false, "no log for " + res
		}
		return len(l.Events) >= n, fmt.Sprintf("%d events, want %d", len(l.Events), n)
	}
}

// TestRecordKilled kills `lwreplay record` with SIGKILL in the middle of a
// watch, after it has flushed at least twice. The cassette it leaves must
// load, and hold every event flushed before the kill.
func TestRecordKilled(t *testing.T) {
	c := sharedCluster(t)
	ctx := t.Context()
	cs, err := kubernetes.NewForConfig(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	const ns = "e2e-kill"
	w := &workload{cs: cs, ns: []string{ns}}
	if err := ensureNamespaces(ctx, cs, ns); err != nil {
		t.Fatal(err)
	}
	if err := w.createConfigMap(ctx, ns, "first", map[string]string{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	outDir := t.TempDir()
	out := filepath.Join(outDir, "killed.yaml")
	r := startRecording(t, kubeconfigFor(t, c), out, "--resource", "configmaps", "--namespace", ns, "--flush-interval", "200ms")
	fw := &flushWatcher{path: out}
	waitFor(t, "the recording has the initial state", func() (bool, string) {
		fw.look()
		return started(out, "configmaps")()
	})
	firstVersion := fw.versions
	for i := range 10 {
		if err := w.createConfigMap(ctx, ns, fmt.Sprintf("cm-%02d", i), map[string]string{"i": fmt.Sprint(i)}); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the creates are flushed", eventsIn(fw, "configmaps", 10))
	for i := range 10 {
		if err := w.updateConfigMap(ctx, ns, fmt.Sprintf("cm-%02d", i), func(cm *corev1.ConfigMap) { cm.Data["u"] = "1" }); err != nil {
			t.Fatal(err)
		}
	}
	waitFor(t, "the updates are flushed", eventsIn(fw, "configmaps", 20))
	if flushes := fw.versions - firstVersion; flushes < 2 {
		t.Fatalf("flushes seen after the initial state: got %d, want at least 2", flushes)
	}
	// More changes, then the kill while the watch is open and events may
	// be in flight.
	for i := range 5 {
		if err := w.deleteConfigMap(ctx, ns, fmt.Sprintf("cm-%02d", i)); err != nil {
			t.Fatal(err)
		}
	}
	_, before, err := loadHistory(out)
	if err != nil {
		t.Fatalf("cassette before the kill: got error %v, want none", err)
	}
	r.kill(t)
	if r.exited() && r.err == nil {
		t.Errorf("lwreplay record after SIGKILL: got exit status 0, want killed")
	}

	t.Run("record killed - cassette loads with the events flushed before the kill - pass", func(t *testing.T) {
		files, err := cassette.LoadAll(out)
		if err != nil {
			t.Fatalf("LoadAll: got error %v, want none", err)
		}
		h, err := history.Build(files...)
		if err != nil {
			t.Fatalf("Build: got error %v, want none", err)
		}
		l, ok := logOf(h, "configmaps")
		lb, _ := logOf(before, "configmaps")
		if !ok {
			t.Fatalf("configmaps: got no log, want one")
		}
		if len(l.Events) < len(lb.Events) || len(l.Events) < 20 {
			t.Fatalf("events: got %d, want at least the %d flushed before the kill (and 20)", len(l.Events), len(lb.Events))
		}
		for k, e := range lb.Events {
			if g := l.Events[k]; g.Type != e.Type || g.Object.Key() != e.Object.Key() || g.RV() != e.RV() {
				t.Errorf("event %d: got %s %s@%s, want %s %s@%s as flushed before the kill", k, g.Type, g.Object.Key(), g.RV(), e.Type, e.Object.Key(), e.RV())
			}
		}
		if _, err := cassette.LoadAll(outDir); err != nil {
			t.Errorf("LoadAll of the output directory: got error %v, want none", err)
		}
		entries, _ := os.ReadDir(outDir)
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Logf("files left: %s; %d events recorded, %d before the kill; %d flushes seen", strings.Join(names, ", "), len(l.Events), len(lb.Events), fw.versions)
		// What was flushed replays: informers reach the history's final
		// state, and the recorded requests get the recorded answers.
		checkReplays(t, h, nil)
		if st := checkSequence(t, files, h); st.watches == 0 {
			t.Errorf("watches compared: got 0, want the recorded one")
		}
	})
	t.Run("record killed - no credentials written - pass", func(t *testing.T) {
		if n := assertNoSecrets(t, c.Token, outDir, r.logDir); n == 0 {
			t.Errorf("files scanned: got 0, want the recording")
		}
	})
}
