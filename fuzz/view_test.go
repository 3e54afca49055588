package fuzz

import (
	"context"
	"errors"
	"maps"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/fuzz/targets"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// inlineInformer is client-go's plain informer (cache.NewInformerWithOptions)
// with a recording handler. client-go calls the handler in the goroutine
// that applies each delta to the store, right after applying it. So what
// the handler reads is the store at exactly that delta, however the
// goroutines are scheduled. A SharedIndexInformer's handler runs in a
// goroutine of its own. It reads the store at whatever delta the informer
// has got to by then.
var inlineInformer = Target{
	Name: "inline-informer",
	Doc:  "a cache.NewInformerWithOptions informer whose recording handler client-go calls after each delta it applies",
	Run: func(ctx context.Context, env *Env) error {
		lw, err := env.SharedListerWatcher(&unstructured.Unstructured{})
		if err != nil {
			return err
		}
		store, ctrl := cache.NewInformerWithOptions(cache.InformerOptions{
			ListerWatcher: lw, ObjectType: &unstructured.Unstructured{}, Handler: inlineHandler{env.Probe}})
		env.Probe.SetSynced(ctrl.HasSynced)
		env.Probe.SetStore(store.List)
		ctrl.RunWithContext(ctx)
		return nil
	},
}

// inlineHandler records each notification to a probe with the store view a
// handler could read, as the probe's own handler does. It cannot ask the
// informer whether it has synced: client-go calls it with its queue
// locked, and HasSynced locks it. Every notification but an add of the
// initial list comes after the sync, and only adds make up an initial
// list.
type inlineHandler struct{ probe *Probe }

func (h inlineHandler) OnAdd(obj any, isInInitialList bool) {
	h.probe.Add(obj, !isInInitialList)
	if !isInInitialList {
		h.probe.View()
	}
}

func (h inlineHandler) OnUpdate(_, obj any) {
	h.probe.Update(obj, true)
	h.probe.View()
}

func (h inlineHandler) OnDelete(obj any) {
	h.probe.Delete(obj, true)
	h.probe.View()
}

// relistPlan answers the first watch 410: the relist is served at the
// newest state, which differs from the listed one in many objects.
func relistPlan(t *testing.T) faults.Plan {
	t.Helper()
	plan, err := faults.ParseText("expire-watch:after=0,watch=1")
	if err != nil {
		t.Fatal(err)
	}
	return plan
}

// viewGates are the gates of a case:
//   - AtomicFIFO as asked, left out on a client-go without it (where it is
//     off);
//   - InOrderInformersBatchProcess off; on, a whole relist is applied in
//     one batch before any handler runs.
//
// ok is false for AtomicFIFO on where client-go has no such gate.
func viewGates(atomic bool) (g Gates, ok bool) {
	g = Gates{harness.GateAtomicFIFO: atomic, harness.GateInOrderInformersBatchProcess: false}
	if !harness.KnownGate(harness.GateAtomicFIFO) {
		if atomic {
			return nil, false
		}
		delete(g, harness.GateAtomicFIFO) // RealFIFO without AtomicFIFO is all there is
	}
	return g, true
}

// TestConsistentViewAtomicFIFO runs client-go through a relist that
// changes many objects at once: the first watch is answered 410, the
// relist served at the newest state. It runs with the AtomicFIFO gate off
// and on, and InOrderInformersBatchProcess off. With AtomicFIFO off
// RealFIFO applies the relist to the store item by item; on, as one
// ReplacedAll.
//
// The inline informer's handler reads the store at the delta it is told
// of. With AtomicFIFO off it reads a mix of the old and the new state in
// every run: a state the server never served. With it on, it reads only
// served states. The same run passed off as one with AtomicFIFO on (its
// gates rewritten) breaks consistent-view. So the invariant fires on what
// a real client read.
//
// The informer target (a SharedIndexInformer) calls its handler in a
// goroutine of its own. With AtomicFIFO on, every state it read was
// served, in every run. With it off, whether it reads a state never served
// depends on how the goroutines happen to run. So consistent-view is not
// judged, and the runs that show one are counted, not asserted. The count
// is the findings × versions table's (hack/findings.sh), from 100 runs
// when it collects.
func TestConsistentViewAtomicFIFO(t *testing.T) {
	informer, _ := targets.Lookup("informer")
	plan := relistPlan(t)
	shared := 10
	if testutil.FindingsWanted() {
		shared = 100 // each, for the findings × versions table
	}
	const (
		never   = iota // no run reads a state never served
		always         // every run does
		counted        // some runs may: counted, not asserted
	)
	tests := []struct {
		name     string
		target   Target
		runs     int
		atomic   bool
		unserved int // never, always or counted
	}{
		{name: "consistent view - inline handler, AtomicFIFO off, relist of many changes - a handler reads an unserved state - fail",
			target: inlineInformer, runs: 1, unserved: always},
		{name: "consistent view - inline handler, AtomicFIFO on, relist of many changes - every state read was served - pass",
			target: inlineInformer, runs: 1, atomic: true, unserved: never},
		{name: "consistent view - shared informer, AtomicFIFO off, relist of many changes - not judged, an unserved state is an inconsistent view - pass",
			target: informer, runs: shared, unserved: counted},
		{name: "consistent view - shared informer, AtomicFIFO on, relist of many changes - every state read was served - pass",
			target: informer, runs: shared, atomic: true, unserved: never},
	}
	for _, lvl := range []Level{Typed, Wire} {
		for _, tc := range tests {
			t.Run(lvl.String()+" "+tc.name, func(t *testing.T) {
				gates, ok := viewGates(tc.atomic)
				if !ok {
					t.Skipf("client-go %s has no AtomicFIFO gate (added in v0.36)", harness.ClientGoVersion())
				}
				seen := 0
				var gatesRun map[string]bool
				for range tc.runs {
					obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Plan: plan, Target: tc.target, Level: lvl, Gates: gates})
					if len(obs.Fired) == 0 {
						t.Fatalf("faults fired: got none, want the first watch expired")
					}
					if len(obs.Views) == 0 {
						t.Fatalf("views: got none, want the store at each notification after the sync")
					}
					gatesRun = obs.Gates
					err := viewViolations(t, obs)
					if err != nil {
						seen++
						if !errors.Is(err, oracle.ErrInconsistentView) {
							t.Errorf("view violations: got %v, want %v", err, oracle.ErrInconsistentView)
						}
					}
					switch {
					case tc.unserved == never && err != nil:
						t.Errorf("view violations: got %v, want none", err)
					case tc.unserved == always && err == nil:
						t.Errorf("view violations: got none, want %v", oracle.ErrInconsistentView)
					}
					// consistent-view holds: on, every view was served; off,
					// it is not judged.
					if judged := oracle.Judge(obs, "consistent-view")["consistent-view"]; judged != nil {
						t.Errorf("consistent-view with AtomicFIFO %s: got %v, want it to hold", map[bool]string{true: "on", false: "off"}[tc.atomic], judged)
					}
					if tc.unserved == counted {
						continue
					}
					// The same run, its gates claiming AtomicFIFO: judged,
					// and broken exactly when a state never served was read.
					claimed := *obs
					claimed.Gates = maps.Clone(obs.Gates)
					claimed.Gates[observe.GateAtomicFIFO] = true
					judged := oracle.Judge(&claimed, "consistent-view")["consistent-view"]
					if got, want := errors.Is(judged, oracle.ErrInconsistentView), tc.unserved == always; got != want || (!want && judged != nil) {
						t.Errorf("consistent-view of the run with AtomicFIFO claimed: got %v, want broken (%v): %v", judged, oracle.ErrInconsistentView, want)
					}
				}
				t.Logf("%d of %d runs showed a state never served (client-go %s)", seen, tc.runs, harness.ClientGoVersion())
				if lvl == Wire && tc.target.Name == informer.Name {
					testutil.RecordFinding(t, testutil.Finding{Finding: "handler reads an unserved store (expire-watch:after=0,watch=1)", ClientGo: harness.ClientGoVersion(),
						Gates: testutil.GatesOf(gatesRun, "AtomicFIFO", "InOrderInformersBatchProcess"), Reproduced: seen, Runs: tc.runs})
				}
			})
		}
	}
}

// viewViolations returns consistent-view's verdict on o as if the run had
// AtomicFIFO on and no breaking fault fired. That is whether a handler
// read a state never served, whatever the gates.
func viewViolations(t *testing.T, o *observe.Observation) error {
	t.Helper()
	c := *o
	c.Gates, c.Fired = map[string]bool{observe.GateAtomicFIFO: true}, nil
	return oracle.Judge(&c, "consistent-view")["consistent-view"]
}
