package targets

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// controllerTargets are the targets built as controllers build informers.
var controllerTargets = []string{"informer-resync", "informer-late-handler", "informer-transform", "factory-shared"}

// resyncs counts the updates delivered at the resourceVersion delivered
// last for their key: the resyncs a handler was told of.
func resyncs(ds []observe.Delivery) int {
	last := map[string]string{}
	n := 0
	for _, d := range ds {
		if d.Op == observe.OpUpdate && last[d.Key] == d.RV {
			n++
		}
		last[d.Key] = d.RV
	}
	return n
}

func TestInformerResync(t *testing.T) {
	t.Parallel()
	h := testutil.MustHistory(t, testutil.Shipped(testutil.TargetCassette))
	// On the WatchList path the configmaps' initial events are decision
	// points 1 to 20 (19 objects and the initial-events-end bookmark).
	tests := []struct {
		name, target, plan string
		watchList          bool
		rounds             int // at least this many resyncs of the whole store
	}{
		{"informer-resync - LIST, a run to the watchdog - resyncs every 30 s, every invariant holds - pass", "informer-resync", "close-watch:after=1,at=100000", false, 20},
		{"informer-resync - WatchList, a run to the watchdog - resyncs every 30 s, every invariant holds - pass", "informer-resync", "close-watch:after=1,at=100000", true, 20},
		{"informer-resync - LIST, a stream paused 65 s - resyncs during the pause, every invariant holds - pass", "informer-resync", "delay:ms=65000,at=5", false, 1},
		{"informer-resync - WatchList, a stream paused 65 s after the initial events - resyncs during the pause, every invariant holds - pass", "informer-resync", "delay:ms=65000,at=25", true, 1},
		{"informer-resync - LIST, a relist, then a run to the watchdog - every invariant holds - pass", "informer-resync", "expire-watch:after=1,at=1 close-watch:after=1,at=100000", false, 20},
		{"informer-resync - WatchList, a stream cut in the initial events, then a run to the watchdog - every invariant holds - pass", "informer-resync", "close-watch:after=3,at=0 close-watch:after=1,at=100000", true, 20},
		{"informer - a run to the watchdog - no resync - pass", "informer", "close-watch:after=1,at=100000", true, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := faults.ParseText(tc.plan)
			if err != nil {
				t.Fatalf("plan: got error %v, want none", err)
			}
			target, _ := Lookup(tc.target)
			obs := harness.Observe(t, harness.Spec{History: h, Plan: plan, Target: target, WatchList: tc.watchList})
			for name, err := range oracle.Judge(obs) {
				if err != nil {
					t.Errorf("%s: got %v, want it to hold", name, err)
				}
			}
			n := resyncs(obs.Deliveries)
			if want := tc.rounds * len(obs.Store); n < want || (tc.rounds == 0 && n > 0) {
				t.Errorf("resyncs: got %d, want at least %d (%d rounds of %d objects), none when no round is wanted", n, want, tc.rounds, len(obs.Store))
			}
		})
	}
}

// TestLateHandlerJoinsSynced shows that the late handler joins an informer
// that has synced, at the state of the first listing. It is told of that
// state as adds in its initial list.
func TestLateHandlerJoinsSynced(t *testing.T) {
	t.Parallel()
	h := testutil.MustHistory(t, testutil.Shipped(testutil.TargetCassette))
	for _, tc := range []struct{ name, plan string }{
		{"late handler - no fault - joins at the first listing - pass", ""},
		{"late handler - first watch 410 at open, relist - joins at the first listing - pass", "expire-watch:after=0,at=1"},
		{"late handler - first stream cut after 2 events - joins at the first listing - pass", "close-watch:after=2,at=0"},
		{"late handler - first LIST answered 503 - joins at the first listing - pass", "http-error:code=503,at=0"},
	} {
		for _, watchList := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s (WatchList %v)", tc.name, watchList), func(t *testing.T) {
				plan, err := faults.ParseText(tc.plan)
				if err != nil {
					t.Fatalf("plan: got error %v, want none", err)
				}
				var mu sync.Mutex
				joined, synced, stored := false, false, 0
				target := harness.Target{Name: "late-probe", Doc: "informer-late-handler, watched", Run: func(ctx context.Context, env *harness.Env) error {
					return lateHandler(ctx, env, func(inf cache.SharedIndexInformer) {
						mu.Lock()
						defer mu.Unlock()
						joined, synced, stored = true, inf.HasSynced(), len(inf.GetStore().List())
					})
				}}
				obs := harness.Observe(t, harness.Spec{History: h, Plan: plan, Target: target, WatchList: watchList})
				for name, err := range oracle.Judge(obs) {
					if err != nil {
						t.Errorf("%s: got %v, want it to hold", name, err)
					}
				}
				mu.Lock()
				defer mu.Unlock()
				if !joined || !synced {
					t.Fatalf("joined: got joined %v, informer synced %v, want both", joined, synced)
				}
				pos, err := obs.TruthLog.Position(obs.SyncedRV)
				if err != nil {
					t.Fatalf("first listing %q: got error %v, want a position", obs.SyncedRV, err)
				}
				if want := len(obs.TruthLog.StateAt(pos)); stored != want || obs.InitialDelivered < want {
					t.Errorf("joined with %d stored, %d told as initial: want %d (the state at rv %s)", stored, obs.InitialDelivered, want, obs.SyncedRV)
				}
				for i, d := range obs.Deliveries[:min(stored, len(obs.Deliveries))] {
					if d.Op != observe.OpAdd || d.Synced {
						t.Errorf("delivery %d: got %s, synced %v, want an add of the initial list", i, d.Op, d.Synced)
					}
				}
			})
		}
	}
}

// heldEnd is a WatchList stream's initial-events-end bookmark.
func heldEnd() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetResourceVersion("9")
	u.SetAnnotations(map[string]string{metav1.InitialEventsAnnotationKey: "true"})
	return u
}

// heldObject is an object at resourceVersion rv.
func heldObject(rv string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetNamespace("ns")
	u.SetName("a")
	u.SetResourceVersion(rv)
	return u
}

func TestHeldListerWatcher(t *testing.T) {
	t.Parallel()
	initial := true
	tests := []struct {
		name      string
		opts      metav1.ListOptions
		release   bool // released before the watch opens
		events    []watch.Event
		wantEarly int // events through before the release
	}{
		{name: "held watch - LIST then WATCH - every event held - pass",
			events:    []watch.Event{{Type: watch.Added, Object: heldObject("10")}, {Type: watch.Modified, Object: heldObject("11")}},
			wantEarly: 0},
		{name: "held watch - WatchList - initial events and their end pass, the next held - pass",
			opts: metav1.ListOptions{SendInitialEvents: &initial},
			events: []watch.Event{{Type: watch.Added, Object: heldObject("8")}, {Type: watch.Bookmark, Object: heldEnd()},
				{Type: watch.Modified, Object: heldObject("10")}},
			wantEarly: 2},
		{name: "held watch - WatchList, a plain bookmark - not the end, passes - pass",
			opts:      metav1.ListOptions{SendInitialEvents: &initial},
			events:    []watch.Event{{Type: watch.Bookmark, Object: heldObject("8")}, {Type: watch.Added, Object: heldObject("9")}},
			wantEarly: 2},
		{name: "held watch - released before it opens - nothing held - pass", release: true,
			events:    []watch.Event{{Type: watch.Added, Object: heldObject("10")}},
			wantEarly: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				fake := watch.NewFakeWithChanSize(len(tc.events), false)
				lw := &cache.ListWatch{
					ListFunc:  func(metav1.ListOptions) (runtime.Object, error) { return &unstructured.UnstructuredList{}, nil },
					WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return fake, nil },
				}
				released := make(chan struct{})
				if tc.release {
					close(released)
				}
				w, err := newHeldListerWatcher(optedOut{lw}, released).Watch(tc.opts)
				if err != nil {
					t.Fatalf("Watch: got error %v, want none", err)
				}
				for _, ev := range tc.events {
					fake.Action(ev.Type, ev.Object)
				}
				got := 0
				for done := false; !done; {
					synctest.Wait()
					select {
					case <-w.ResultChan():
						got++
					default:
						done = true
					}
				}
				if got != tc.wantEarly {
					t.Errorf("events before the release: got %d, want %d", got, tc.wantEarly)
				}
				if !tc.release {
					close(released)
				}
				for range len(tc.events) - got {
					<-w.ResultChan()
				}
				w.Stop()
				if _, open := <-w.ResultChan(); open {
					t.Errorf("after Stop: got an open channel, want it closed")
				}
			})
		})
	}
	t.Run("held lister watcher - parent opted out of WatchList - opts out too - pass", func(t *testing.T) {
		if got := newHeldListerWatcher(optedOut{&cache.ListWatch{}}, nil).IsWatchListSemanticsUnSupported(); !got {
			t.Errorf("IsWatchListSemanticsUnSupported: got false, want true")
		}
		if got := newHeldListerWatcher(&cache.ListWatch{}, nil).IsWatchListSemanticsUnSupported(); got {
			t.Errorf("IsWatchListSemanticsUnSupported: got true, want false")
		}
	})
	t.Run("held watch - stopped while holding - closes, parent stopped - pass", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			fake := watch.NewFakeWithChanSize(1, false)
			lw := &cache.ListWatch{WatchFunc: func(metav1.ListOptions) (watch.Interface, error) { return fake, nil }}
			w, err := newHeldListerWatcher(lw, make(chan struct{})).Watch(metav1.ListOptions{})
			if err != nil {
				t.Fatalf("Watch: got error %v, want none", err)
			}
			fake.Add(heldObject("10"))
			synctest.Wait()
			w.Stop()
			if _, open := <-w.ResultChan(); open {
				t.Errorf("after Stop: got an event, want the channel closed")
			}
			if !fake.IsStopped() {
				t.Errorf("parent: got running, want stopped")
			}
		})
	})
}

// optedOut is a ListWatch whose client does not support WatchList.
type optedOut struct{ *cache.ListWatch }

// IsWatchListSemanticsUnSupported opts the reflector out of WatchList.
func (optedOut) IsWatchListSemanticsUnSupported() bool { return true }
