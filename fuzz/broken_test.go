package fuzz

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/synth"
)

// informerThen returns the informer target with before run ahead of it.
func informerThen(name string, before func(env *Env)) Target {
	informer, _ := LookupTarget("informer")
	return Target{Name: name, Doc: "the informer target, " + name, Run: func(ctx context.Context, env *Env) error {
		before(env)
		return informer.Run(ctx, env)
	}}
}

// TestInvariantsFireOnBrokenReplays runs the informer target against the
// real WatchList cassette, broken on purpose — by a breaking fault at a
// frame found to matter, or by a target that lies to its recorder — and
// shows each invariant firing on what a real run observed (clean-stop:
// TestCleanStopOnRealRuns).
func TestInvariantsFireOnBrokenReplays(t *testing.T) {
	t.Parallel()
	informer, _ := LookupTarget("informer")
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
		invariant string
		want      error
	}{
		{name: "broken replays - no fault - every invariant holds - pass", target: informer, invariant: ""},
		{name: "converged - a MODIFIED dropped - fail", plan: "drop-event:watch=1,frame=57", target: informer,
			invariant: "converged", want: ErrNotConverged},
		{name: "no-lost-delete - a DELETED dropped - fail", plan: "drop-event:watch=1,frame=58", target: informer,
			invariant: "no-lost-delete", want: ErrLostDelete},
		{name: "no-time-travel - two changes of one key swapped - fail", plan: "reorder:watch=1,frame=27", target: informer,
			invariant: "no-time-travel", want: ErrTimeTravel},
		{name: "live - initial events never end - fail", plan: "missing-initial-events-end", target: informer,
			invariant: "live", want: ErrNotLive},
		{name: "synced-after-initial - HasSynced true from the start - fail", target: syncedAtOnce,
			invariant: "synced-after-initial", want: ErrSyncedEarly},
		{name: "no-bookmark-object - a bookmark handed to the handler - fail", target: bookmarkAsObject,
			invariant: "no-bookmark-object", want: ErrBookmarkObject},
	}
	for _, level := range []Level{Typed, Wire} {
		for _, tc := range tests {
			t.Run(level.String()+" "+tc.name, func(t *testing.T) {
				plan, err := faults.ParseText(tc.plan)
				if err != nil {
					t.Fatalf("plan %q: got error %v, want none", tc.plan, err)
				}
				obs := Observe(t, Spec{History: loadTargetHistory(t), Plan: plan, Target: tc.target, WatchList: true, Level: level})
				results := Judge(obs)
				for _, inv := range Invariants {
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
// synced to — the first complete listing the replay served — and that
// synced-after-initial fires, on a real run, for a target that reports
// synced before it holds that state, even where the truth's weakest bound
// (its smallest state: empty, here) would let it pass.
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
	informer, _ := LookupTarget("informer")
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
		{name: "synced rv - synced after one of three objects - fail", target: syncedAfterOne, want: ErrSyncedEarly},
	}
	for _, level := range []Level{Typed, Wire} {
		for _, tc := range tests {
			t.Run(level.String()+" "+tc.name, func(t *testing.T) {
				obs := Observe(t, Spec{History: h, Target: tc.target, WatchList: tc.watchList, Level: level})
				if obs.SyncedRV != snapRV {
					t.Errorf("SyncedRV: got %q, want %q (the snapshot the replay listed first)", obs.SyncedRV, snapRV)
				}
				if got := minStateSize(obs.Truth); got != 0 {
					t.Fatalf("smallest state: got %d keys, want 0 (so that only SyncedRV can catch the lie)", got)
				}
				err := Judge(obs, "synced-after-initial")["synced-after-initial"]
				if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
					t.Errorf("synced-after-initial: got %v, want %v", err, tc.want)
				}
			})
		}
	}
}
