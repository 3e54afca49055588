package fuzz

import (
	"context"
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/faults"
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
		env.Recorder.SetSynced(func() bool { return true })
		lw, err := env.ListerWatcher(&unstructured.Unstructured{})
		if err != nil {
			return err
		}
		list, err := lw.List(metav1.ListOptions{})
		if err != nil {
			return err
		}
		store := cache.NewStore(cache.MetaNamespaceKeyFunc)
		env.Recorder.SetStore(store.List)
		for _, item := range list.(*unstructured.UnstructuredList).Items {
			if err := store.Add(&item); err != nil {
				return err
			}
			env.Recorder.Add(&item, true)
		}
		<-ctx.Done()
		return nil
	}}
	bookmarkAsObject := informerThen("bookmark-as-object", func(env *Env) {
		bm := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"resourceVersion": "140"}}}
		env.Recorder.Add(bm, false)
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
				obs := Replay(t, Spec{History: loadTargetHistory(t), Plan: plan, Target: tc.target, WatchList: true, Level: level})
				results := Check(obs)
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
