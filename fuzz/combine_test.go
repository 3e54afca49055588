package fuzz

import (
	"context"
	"os"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
)

// relistFromZero is a planted bug that fuzzing finds by combining two
// decisions early in a run. Whenever its watch ends, this consumer lists
// again at resourceVersion "0" (whatever the cache has) and takes what it
// gets. It should relist at the version it had. A watch cut after a few
// events alone is harmless: the relist is served the newest state the
// server reached. So is a stale first LIST. But a cut watch and then a
// stale relist take it back in time (no-time-travel).
var relistFromZero = Target{Name: "relist-from-zero", Doc: "a consumer that relists at resourceVersion 0 and takes what it gets", Run: func(ctx context.Context, env *Env) error {
	lw, err := env.ListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return err
	}
	store := map[string]*unstructured.Unstructured{}
	synced := false
	env.Probe.SetStore(func() []any {
		out := make([]any, 0, len(store))
		for _, o := range store {
			out = append(out, o)
		}
		return out
	})
	env.Probe.SetSynced(func() bool { return synced })
	for ctx.Err() == nil {
		list, err := lw.List(metav1.ListOptions{ResourceVersion: "0"})
		if err != nil {
			continue
		}
		ul := list.(*unstructured.UnstructuredList)
		seen := map[string]bool{}
		for i := range ul.Items {
			o := &ul.Items[i]
			k := o.GetNamespace() + "/" + o.GetName()
			seen[k] = true
			switch old, ok := store[k]; {
			case !ok:
				env.Probe.Add(o, synced)
			case old.GetResourceVersion() != o.GetResourceVersion():
				env.Probe.Update(o, synced)
			}
			store[k] = o
		}
		for k, o := range store {
			if !seen[k] {
				delete(store, k)
				env.Probe.Delete(o, synced)
			}
		}
		synced = true
		w, err := lw.Watch(metav1.ListOptions{ResourceVersion: ul.GetResourceVersion()})
		if err != nil {
			continue
		}
		for ev := range w.ResultChan() {
			o, ok := ev.Object.(*unstructured.Unstructured)
			if !ok || ev.Type == watch.Error || ev.Type == watch.Bookmark {
				continue
			}
			k := o.GetNamespace() + "/" + o.GetName()
			switch ev.Type {
			case watch.Added:
				store[k] = o
				env.Probe.Add(o, true)
			case watch.Modified:
				store[k] = o
				env.Probe.Update(o, true)
			case watch.Deleted:
				delete(store, k)
				env.Probe.Delete(o, true)
			}
		}
		w.Stop()
	}
	return nil
}}

// combineEnv names the cassette FuzzCombine replays, and combineSeedsEnv
// turns Options.DecisionSeeds on; unset, FuzzCombine skips.
const (
	combineEnv      = "LWREPLAY_COMBINE"
	combineSeedsEnv = "LWREPLAY_COMBINE_SEEDS"
)

// FuzzCombine fuzzes relistFromZero over LIST+WATCH, to measure how fast
// go test -fuzz finds a bug that combines two decisions, with and without
// decision seeds (bench/combine.sh).
func FuzzCombine(f *testing.F) {
	path := os.Getenv(combineEnv)
	if path == "" {
		f.Skip("bench/combine.sh runs it")
	}
	Run(f, Options{Cassettes: []string{path}, Target: relistFromZero, WatchList: new(false),
		Invariants: []string{"no-time-travel"}, DecisionSeeds: os.Getenv(combineSeedsEnv) != ""})
}

// TestRelistFromZeroCombines shows the planted bug at two decisions early
// in a run. Each alone holds; the two together break no-time-travel. It
// also shows that DecisionSeeds holds each one alone.
func TestRelistFromZeroCombines(t *testing.T) {
	tests := []struct {
		name string
		plan string
		want bool // no-time-travel breaks
	}{
		{name: "combine - no fault - holds - pass", plan: ""},
		{name: "combine - the first watch cut after 2 events - holds - pass", plan: "close-watch:after=2,at=1"},
		{name: "combine - a stale first LIST - holds - pass", plan: "stale-list:back=10,at=0"},
		{name: "combine - the first watch cut after 2 events, then a stale relist - goes back in time - fail",
			plan: "close-watch:after=2,at=1 stale-list:back=10,at=4", want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Plan: mustPlan(t, tc.plan), Target: relistFromZero, Level: Typed})
			err := oracle.Judge(obs, "no-time-travel")["no-time-travel"]
			if (err != nil) != tc.want {
				t.Errorf("no-time-travel: got %v, want broken: %v (fired: %v)", err, tc.want, obs.Fired)
			}
		})
	}
	c, err := NewCampaign(Options{Cassettes: []string{"../cassettes/real-configmaps-pods-watchlist.yaml"}, WatchList: new(false), DecisionSeeds: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, min := len(c.Seeds()), len(DecisionSeedPoints)*20; got < min {
		t.Errorf("seeds with DecisionSeeds: got %d, want at least %d (a legal decision per choice and point)", got, min)
	}
}
