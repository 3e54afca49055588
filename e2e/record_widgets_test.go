package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/cluster"
)

// widgetFixtures is where -update puts TestRecordWidgets' recordings:
// examples/widgets replays them to its reconciler.
const widgetFixtures = "../examples/widgets/testdata"

// TestRecordWidgets records Widgets: examples/widgets' custom resource,
// with a status subresource. Its CRD is applied to a real kube-apiserver
// of its own. It records with lwreplay record on both client paths:
// WatchList, and LIST in pages of 2 then WATCH. Meanwhile a client
// creates, updates and deletes widgets. Among them is a widget held by a
// finalizer, deleted (a deletionTimestamp first), then created again under
// its name. Each recording's history ends at the real final state, holds
// the deleting and the recreated phoenix, and replays to its recorded
// answers. Under -update the recordings become examples/widgets'
// cassettes.
func TestRecordWidgets(t *testing.T) {
	c := cluster.StartT(t)
	ctx := t.Context()
	cs, err := kubernetes.NewForConfig(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	if err := applyCRD(ctx, dyn, widgetCRD, widgetGVR); err != nil {
		t.Fatal(err)
	}
	if err := ensureNamespaces(ctx, cs, widgetNS); err != nil {
		t.Fatal(err)
	}
	actor := widgetActor{dyn: dyn, pause: actorPause}
	if err := actor.prepopulate(ctx); err != nil {
		t.Fatal(err)
	}
	kubeconfig := kubeconfigFor(t, c)
	outDir := t.TempDir()
	recs := recordBothPaths(t, kubeconfig, outDir, "widgets", "widgets.example.lwreplay.dev", func(path string) (bool, string) { return widgetsCaughtUp(path, nil) })
	if err := actor.mutate(ctx); err != nil {
		t.Fatal(err)
	}
	_, want, err := realState(ctx, dyn, widgetGVR, "")
	if err != nil {
		t.Fatal(err)
	}
	stopCaughtUp(t, recs, func(path string) (bool, string) { return widgetsCaughtUp(path, want) })
	for _, r := range recs {
		files, h, err := loadHistory(r.out)
		if err != nil {
			t.Fatalf("%s: load %s: got error %v, want none", r.name, r.out, err)
		}
		t.Run("record widgets - "+r.name+" - history ends at the real final state, the phoenix deleting then recreated - pass", func(t *testing.T) {
			l, ok := h.Log(widgetResource)
			if !ok {
				t.Fatalf("widgets: got no log, want one")
			}
			got, err := historyState(l)
			if err != nil {
				t.Fatal(err)
			}
			compareStates(t, "widgets history final state", got, want)
			if err := checkPhoenix(l); err != nil {
				t.Error(err)
			}
		})
		checkReplays(t, h, map[string]map[string]map[string]any{"widgets": want})
		checkSequenceAtLeast(t, "replay sequence - widgets "+r.name, files, h, 1, 9)
		checkShippable(t, "record widgets - "+r.name, c.Token, r.out, filepath.Join(widgetFixtures, r.file), outDir, r.logDir)
	}
}

// widgetsCaughtUp says whether the cassette at path loads and its widgets
// log ends at want's keys and resourceVersions (nil want: a started log
// is enough).
func widgetsCaughtUp(path string, want map[string]map[string]any) (bool, string) {
	if _, err := os.Stat(path); err != nil {
		return false, err.Error()
	}
	_, h, err := loadHistory(path)
	if err != nil {
		return false, err.Error()
	}
	l, ok := h.Log(widgetResource)
	if !ok {
		return false, "no log for widgets yet"
	}
	if want == nil {
		return true, ""
	}
	got, err := historyState(l)
	if err != nil {
		return false, err.Error()
	}
	if g, w := stateSummary(got), stateSummary(want); strings.Join(g, " ") != strings.Join(w, " ") {
		return false, fmt.Sprintf("got %d widgets %q, want %d %q", len(g), g, len(w), w)
	}
	return true, ""
}

// checkPhoenix says whether the widgets log shows the phoenix modified
// with a deletionTimestamp, then deleted, then added again with a new UID.
func checkPhoenix(l *history.Log) error {
	key := widgetNS + "/" + widgetPhoenix
	var steps []string
	step := func(s string) {
		if len(steps) == 0 || steps[len(steps)-1] != s { // the finalizer's removal may come as a MODIFIED too
			steps = append(steps, s)
		}
	}
	oldUID := ""
	for _, e := range l.Events {
		if e.Object.Key() != key {
			continue
		}
		switch {
		case e.Type == history.Modified && strings.Contains(string(e.Object.Raw), `"deletionTimestamp"`):
			step("deleting")
			oldUID = e.Object.UID
		case e.Type == history.Deleted && e.Object.UID == oldUID:
			step("deleted")
		case e.Type == history.Added && oldUID != "" && e.Object.UID != oldUID:
			step("recreated")
		}
	}
	if got := strings.Join(steps, " "); got != "deleting deleted recreated" {
		return fmt.Errorf("%s: got %q, want \"deleting deleted recreated\"", key, got)
	}
	return nil
}
