package fuzz

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/fuzz/targets"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// informerThen returns the informer target with before run ahead of it.
func informerThen(name string, before func(env *Env)) Target {
	informer, _ := targets.Lookup("informer")
	return Target{Name: name, Doc: "the informer target, " + name, Run: func(ctx context.Context, env *Env) error {
		before(env)
		return informer.Run(ctx, env)
	}}
}

// TestInvariantsFireOnBrokenReplays runs the informer target against the
// real WatchList cassette, broken on purpose. It is broken by a breaking
// fault at a frame found to matter, or by a target that lies to its
// recorder. It shows each invariant firing on what a real run observed
// (clean-stop: TestCleanStopOnRealRuns).
func TestInvariantsFireOnBrokenReplays(t *testing.T) {
	t.Parallel()
	informer, _ := targets.Lookup("informer")
	// syncedAtOnce says it has synced before it lists, then hands the
	// listed objects to its handler one by one.
	syncedAtOnce := Target{Name: "synced-at-once", Doc: "a lister that claims to have synced first", Run: func(ctx context.Context, env *Env) error {
		env.Probe.SetSynced(func() bool { return true })
		lw, err := env.ListerWatcher(&unstructured.Unstructured{})
		if err != nil {
			return err
		}
		list, err := lw.List(metav1.ListOptions{})
		if err != nil {
			return err
		}
		store := cache.NewStore(cache.MetaNamespaceKeyFunc)
		env.Probe.SetStore(store.List)
		for _, item := range list.(*unstructured.UnstructuredList).Items {
			if err := store.Add(&item); err != nil {
				return err
			}
			env.Probe.Add(&item, true)
		}
		<-ctx.Done()
		return nil
	}}
	bookmarkAsObject := informerThen("bookmark-as-object", func(env *Env) {
		bm := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"resourceVersion": "140"}}}
		env.Probe.Add(bm, false)
	})
	tests := []struct {
		name      string
		plan      string
		target    Target
		liveBound time.Duration
		invariant string
		want      error
	}{
		{name: "broken replays - no fault - every invariant holds - pass", target: informer, invariant: ""},
		{name: "converged - a MODIFIED dropped - fail", plan: "drop-event:watch=1,frame=57", target: informer,
			invariant: "converged", want: oracle.ErrNotConverged},
		{name: "no-lost-delete - a DELETED dropped - fail", plan: "drop-event:watch=1,frame=58", target: informer,
			invariant: "no-lost-delete", want: oracle.ErrLostDelete},
		{name: "no-time-travel - two changes of one key swapped - fail", plan: "reorder:watch=1,frame=27", target: informer,
			invariant: "no-time-travel", want: oracle.ErrTimeTravel},
		{name: "live - a change held back 65 s, a live bound of 30 s - fail", plan: "delay:ms=65000,watch=1,frame=57", target: informer,
			liveBound: 30 * time.Second, invariant: "live", want: oracle.ErrNotLive},
		{name: "synced-after-initial - HasSynced true from the start - fail", target: syncedAtOnce,
			invariant: "synced-after-initial", want: oracle.ErrSyncedEarly},
		{name: "no-bookmark-object - a bookmark handed to the handler - fail", target: bookmarkAsObject,
			invariant: "no-bookmark-object", want: oracle.ErrBookmarkObject},
	}
	for _, lvl := range []Level{Typed, Wire} {
		for _, tc := range tests {
			t.Run(lvl.String()+" "+tc.name, func(t *testing.T) {
				plan := mustPlan(t, tc.plan)
				obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Plan: plan, Target: tc.target, WatchList: true, Level: lvl, LiveBound: tc.liveBound})
				results := oracle.Judge(obs)
				for _, inv := range oracle.Invariants {
					err := results[inv.Name]
					switch {
					case tc.invariant == "" && err != nil:
						t.Errorf("%s: got %v, want it to hold", inv.Name, err)
					case inv.Name == tc.invariant && !errors.Is(err, tc.want):
						t.Errorf("%s: got %v, want %v", inv.Name, err, tc.want)
					}
				}
			})
		}
	}
}

// TestSyncedRVOnRealRuns shows that a run records the state its target
// synced to: the first complete listing the replay served. It shows
// synced-after-initial firing, on a real run, for a target that reports
// synced before it holds that state. It fires even where the truth's
// weakest bound would let it pass: its smallest state, empty here.
func TestSyncedRVOnRealRuns(t *testing.T) {
	b := synth.NewBuilder()
	cms := []*corev1.ConfigMap{configMap("a", nil), configMap("b", nil), configMap("c", nil)}
	for _, cm := range cms {
		b.Add(cm)
	}
	b.Snapshot()
	snapRV := b.RV()
	for _, cm := range cms {
		b.Delete(cm)
	}
	h, err := b.History()
	if err != nil {
		t.Fatalf("History: got error %v, want none", err)
	}
	informer, _ := targets.Lookup("informer")
	// syncedAfterOne lists, then says it has synced once the first listed
	// object reached its handler.
	syncedAfterOne := Target{Name: "synced-after-one", Doc: "a lister that claims to have synced after one object", Run: func(ctx context.Context, env *Env) error {
		var delivered atomic.Int32
		env.Probe.SetSynced(func() bool { return delivered.Load() > 0 })
		lw, err := env.ListerWatcher(&unstructured.Unstructured{})
		if err != nil {
			return err
		}
		list, err := lw.List(metav1.ListOptions{})
		if err != nil {
			return err
		}
		store := cache.NewStore(cache.MetaNamespaceKeyFunc)
		env.Probe.SetStore(store.List)
		for _, item := range list.(*unstructured.UnstructuredList).Items {
			if err := store.Add(&item); err != nil {
				return err
			}
			env.Probe.Add(&item, delivered.Load() > 0)
			delivered.Add(1)
		}
		<-ctx.Done()
		return nil
	}}
	tests := []struct {
		name      string
		target    Target
		watchList bool
		want      error
	}{
		{name: "synced rv - informer, WatchList - the initial-events-end bookmark's rv, holds - pass", target: informer, watchList: true},
		{name: "synced rv - informer, LIST - the LIST's rv, holds - pass", target: informer, watchList: false},
		{name: "synced rv - synced after one of three objects - fail", target: syncedAfterOne, want: oracle.ErrSyncedEarly},
	}
	for _, lvl := range []Level{Typed, Wire} {
		for _, tc := range tests {
			t.Run(lvl.String()+" "+tc.name, func(t *testing.T) {
				obs := harness.Observe(t, harness.Spec{History: h, Target: tc.target, WatchList: tc.watchList, Level: lvl})
				if obs.SyncedRV != snapRV {
					t.Errorf("SyncedRV: got %q, want %q (the snapshot the replay listed first)", obs.SyncedRV, snapRV)
				}
				if got := smallestState(obs.TruthLog); got != 0 {
					t.Fatalf("smallest state: got %d keys, want 0 (so that only SyncedRV can catch the lie)", got)
				}
				err := oracle.Judge(obs, "synced-after-initial")["synced-after-initial"]
				if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
					t.Errorf("synced-after-initial: got %v, want %v", err, tc.want)
				}
			})
		}
	}
}

// TestTargetOutputIsEvidence shows that what a target leaves behind is
// judged by the invariant it breaks, with the run observed to its end,
// never by aborting the test. It leaves a bookmark object in its store, an
// item that is no object, and an error from its Run.
func TestTargetOutputIsEvidence(t *testing.T) {
	// storing runs an informer whose store, as it hands it to the probe,
	// holds extra besides the informer's objects.
	storing := func(name string, extra any) Target {
		return Target{Name: name, Doc: "an informer with " + name + " in its store", Run: func(ctx context.Context, env *Env) error {
			lw, err := env.ListerWatcher(&unstructured.Unstructured{})
			if err != nil {
				return err
			}
			inf := cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, 0, cache.Indexers{})
			reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
			if err != nil {
				return err
			}
			env.Probe.SetSynced(reg.HasSynced)
			env.Probe.SetStore(func() []any { return append(inf.GetStore().List(), extra) })
			inf.RunWithContext(ctx)
			return nil
		}}
	}
	bookmark := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"resourceVersion": "140"}}}
	failing := Target{Name: "run-fails", Doc: "a target whose Run fails at once", Run: func(context.Context, *Env) error {
		return errors.New("controller: cannot start: quota")
	}}
	tests := []struct {
		name      string
		target    Target
		invariant string
		want      error
		wantText  string
	}{
		{name: "evidence - a bookmark object in the store - no-bookmark-object, fail", target: storing("a bookmark object", bookmark),
			invariant: "no-bookmark-object", want: oracle.ErrBookmarkObject, wantText: "store holds an object with an empty key (rv 140)"},
		{name: "evidence - an item that is no object in the store - converged, fail", target: storing("a string", "not an object"),
			invariant: "converged", want: oracle.ErrNotConverged, wantText: "store item"},
		{name: "evidence - Run returns an error - clean-stop, fail", target: failing,
			invariant: "clean-stop", want: oracle.ErrUncleanStop, wantText: "target error: Run returned: controller: cannot start: quota"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Target: tc.target, WatchList: true, Level: Typed})
			if obs == nil || obs.EndedAt <= 0 {
				t.Fatalf("observation: got %v, want a run observed to its end", obs)
			}
			err := oracle.Judge(obs, tc.invariant)[tc.invariant]
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.wantText) {
				t.Errorf("%s: got %v, want %v containing %q", tc.invariant, err, tc.want, tc.wantText)
			}
		})
	}
}

// smallestState returns how many keys the smallest state of l holds.
func smallestState(l *history.Log) int {
	n := len(l.StateAt(0))
	for pos := 1; pos <= l.End(); pos++ {
		n = min(n, len(l.StateAt(pos)))
	}
	return n
}

func configMap(name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name}, Data: data}
}
