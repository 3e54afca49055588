package targets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// transformTarget returns a target of name whose informer has transform
// as its TransformFunc and whose store is compared without omits.
func transformTarget(name string, transform cache.TransformFunc, omits ...string) harness.Target {
	return harness.Target{Name: name, Doc: "a planted informer-transform", StoreOmits: omits,
		Run: func(ctx context.Context, env *harness.Env) error { return informerTransform(ctx, env, transform) }}
}

// stripLabelsToo is a transform that strips managedFields and labels: a
// field the truth comparison sees.
func stripLabelsToo(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetLabels(nil)
	}
	return stripManagedFields(obj)
}

// keep is a transform that strips nothing.
func keep(obj any) (any, error) { return obj, nil }

// bumpRV is a transform that strips managedFields and appends a digit to
// the object's resourceVersion.
func bumpRV(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		m.SetResourceVersion(m.GetResourceVersion() + "0")
	}
	return stripManagedFields(obj)
}

// transformedKey is the annotation countCalls counts its calls in.
const transformedKey = "lwreplay.dev/transformed"

// countCalls is a transform that is not idempotent: it strips
// managedFields and counts its calls on the object in an annotation.
func countCalls(obj any) (any, error) {
	if m, err := meta.Accessor(obj); err == nil {
		a := m.GetAnnotations()
		if a == nil {
			a = map[string]string{}
		}
		n, _ := strconv.Atoi(a[transformedKey])
		a[transformedKey] = strconv.Itoa(n + 1)
		m.SetAnnotations(a)
	}
	return stripManagedFields(obj)
}

// fired returns the invariants obs breaks, sorted, logging each.
func fired(t *testing.T, obs *observe.Observation) []string {
	t.Helper()
	var out []string
	for name, err := range oracle.Judge(obs) {
		if err != nil && !errors.Is(err, oracle.ErrNotJudged) {
			out = append(out, name)
			t.Logf("%s: %v", name, err)
		}
	}
	sort.Strings(out)
	return out
}

// withManagedFields counts the objects of objs that have managedFields.
func withManagedFields(objs []*history.Object) int {
	n := 0
	for _, o := range objs {
		var v struct {
			Metadata struct {
				ManagedFields []json.RawMessage `json:"managedFields"`
			} `json:"metadata"`
		}
		if json.Unmarshal(o.Raw, &v) == nil && len(v.Metadata.ManagedFields) > 0 {
			n++
		}
	}
	return n
}

func TestInformerTransform(t *testing.T) {
	t.Parallel()
	h := testutil.MustHistory(t, testutil.Shipped(testutil.TargetCassette))
	builtin, ok := Lookup("informer-transform")
	if !ok {
		t.Fatalf("Lookup(informer-transform): got none, want the built-in target")
	}
	tests := []struct {
		name      string
		target    harness.Target
		plan      string
		watchList bool
		lvl       level.Level
		want      []string // the invariants that fire; none for a clean run
		// atomic are the invariants that fire besides with client-go's
		// AtomicFIFO gate on (v0.36 on), under which consistent-view is
		// judged
		atomic []string
		// calls, for countCalls, is the count its annotation ends at on
		// some stored object (0: not checked)
		calls int
		// watchdog says the plan never fires: the run goes on to the
		// watchdog, and the handler is told of resyncs
		watchdog bool
	}{
		{name: "informer-transform - LIST, no fault - managedFields stripped, every invariant holds - pass", target: builtin},
		{name: "informer-transform - WatchList, no fault - managedFields stripped, every invariant holds - pass", target: builtin, watchList: true},
		{name: "informer-transform - LIST, wire level - every invariant holds - pass", target: builtin, lvl: level.Wire},
		{name: "informer-transform - WatchList, wire level - every invariant holds - pass", target: builtin, watchList: true, lvl: level.Wire},
		{name: "informer-transform - LIST, a 410 at the first watch - relists, every invariant holds - pass", target: builtin, plan: "expire-watch:after=0,at=1"},
		{name: "informer-transform - LIST, the stream cut after 2 events - resumes, every invariant holds - pass", target: builtin, plan: "close-watch:after=2,at=1"},
		{name: "informer-transform - WatchList, the stream ended after its initial events and compacted past - a 410, streams again, every invariant holds - pass", target: builtin, plan: "close-after-initial-events:at=0", watchList: true},
		{name: "informer-transform - WatchList, the stream cut after 2 initial events - streams again, every invariant holds - pass", target: builtin, plan: "close-watch:after=2,at=0", watchList: true},
		{name: "informer-transform - LIST, a run to the watchdog - resyncs hand on stripped objects, every invariant holds - pass", target: builtin, plan: "close-watch:after=1,at=100000", watchdog: true},
		{name: "informer-transform - WatchList, a run to the watchdog - resyncs hand on stripped objects, every invariant holds - pass", target: builtin, plan: "close-watch:after=1,at=100000", watchList: true, watchdog: true},
		{name: "informer-transform - a transform that strips labels too - content differs - fail",
			target: transformTarget("transform-strips-labels", stripLabelsToo, managedFields), want: []string{"converged"}},
		{name: "informer-transform - a transform that strips nothing, managedFields said left out - stored objects hold them - fail",
			target: transformTarget("transform-keeps", keep, managedFields), want: []string{"converged"}},
		{name: "informer-transform - the right transform, no field said left out - content differs - fail",
			target: transformTarget("transform-unsaid", stripManagedFields), want: []string{"converged"}},
		{name: "informer-transform - a transform that changes the resourceVersion - another rv stored, and read by handlers - fail",
			target: transformTarget("transform-bumps-rv", bumpRV, managedFields), want: []string{"converged", "live"}, atomic: []string{"consistent-view"}},
		{name: "informer-transform - LIST, a transform that counts its calls in an annotation - called once, content differs - fail",
			target: transformTarget("transform-counts", countCalls, managedFields), want: []string{"converged"}, calls: 1},
		{name: "informer-transform - WatchList, a transform that counts its calls in an annotation - called twice on the initial objects, content differs - fail",
			target: transformTarget("transform-counts", countCalls, managedFields), watchList: true, want: []string{"converged"}, calls: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := faults.ParseText(tc.plan)
			if err != nil {
				t.Fatalf("plan: got error %v, want none", err)
			}
			obs := harness.Observe(t, harness.Spec{History: h, Plan: plan, Target: tc.target, WatchList: tc.watchList, Level: tc.lvl})
			if tc.plan != "" && !tc.watchdog && obs.LastFaultAt < 0 {
				t.Errorf("plan %q: got no fault fired, want it to fire", tc.plan)
			}
			if n := resyncs(obs.Deliveries); tc.watchdog && n < len(obs.Store) {
				t.Errorf("resyncs: got %d, want at least one round of the %d stored objects", n, len(obs.Store))
			}
			final := obs.TruthLog.StateAt(obs.TruthLog.End())
			if n := withManagedFields(final); n == 0 {
				t.Fatalf("truth: got no final object with managedFields, want some (the strip is not exercised)")
			}
			want := tc.want
			if obs.Gates[observe.GateAtomicFIFO] {
				want = append(slices.Clone(want), tc.atomic...)
				sort.Strings(want)
			}
			if got := fired(t, obs); !slices.Equal(got, want) {
				t.Errorf("invariants that fired: got %v, want %v", got, want)
			}
			if tc.calls > 0 {
				checkCalls(t, obs, tc.calls)
			}
		})
	}
}

// checkCalls checks that the initial objects of obs's store carry
// countCalls's annotation at calls.
func checkCalls(t *testing.T, obs *observe.Observation, calls int) {
	t.Helper()
	counted := 0
	for k, o := range obs.Store {
		var v struct {
			Metadata struct {
				Annotations map[string]string `json:"annotations"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(o.Raw, &v); err != nil {
			t.Fatalf("store %s: got error %v, want JSON", k, err)
		}
		if v.Metadata.Annotations[transformedKey] == fmt.Sprint(calls) {
			counted++
		}
	}
	if counted == 0 {
		t.Errorf("calls: got no stored object transformed %d times, want some", calls)
	}
}

// sharedTransform is informer-transform's informer on
// env.SharedListerWatcher: its transform strips the typed level's shared
// decoded objects.
func sharedTransform(ctx context.Context, env *harness.Env) error {
	lw, err := env.SharedListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return err
	}
	inf := cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, 0, cache.Indexers{})
	if err := inf.SetTransform(stripManagedFields); err != nil {
		return err
	}
	if _, err := env.Probe.AddEventHandler(inf, nil); err != nil {
		return err
	}
	inf.RunWithContext(ctx)
	return nil
}

// TestInformerTransformLeavesSharedObjects runs a transforming informer
// and then an informer without a transform on one typed-level cache, on
// both client paths. informer-transform changes copies. So the informer
// after it is handed copies of the cache's objects too, and stores them as
// served, managedFields and all. They are compared by content: a copy is
// not the cache's own.
func TestInformerTransformLeavesSharedObjects(t *testing.T) {
	t.Parallel()
	h := testutil.MustHistory(t, testutil.Shipped(testutil.TargetCassette))
	builtin, _ := Lookup("informer-transform")
	after := transformTarget("informer-copies", keep)
	tests := []struct {
		name  string
		first harness.Target
		want  []string // the invariants the informer after it breaks
	}{
		{name: "shared cache - informer-transform, then an informer - its objects as served - pass", first: builtin},
		{name: "shared cache - a transform of the shared objects, then an informer - its objects stripped - fail",
			first: harness.Target{Name: "transform-shared", Doc: "a planted informer-transform", Run: sharedTransform, StoreOmits: []string{managedFields}},
			want:  []string{"converged"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := level.NewCache()
			for _, watchList := range []bool{false, true} {
				first := harness.Observe(t, harness.Spec{History: h, Target: tc.first, WatchList: watchList, Cache: c})
				if got := fired(t, first); len(got) != 0 {
					t.Errorf("%s (WatchList %v): got %v fired, want none", tc.first.Name, watchList, got)
				}
			}
			var got []string
			for _, watchList := range []bool{false, true} {
				obs := harness.Observe(t, harness.Spec{History: h, Target: after, WatchList: watchList, Cache: c})
				for _, name := range fired(t, obs) {
					if !slices.Contains(got, name) {
						got = append(got, name)
					}
				}
			}
			sort.Strings(got)
			if !slices.Equal(got, tc.want) {
				t.Errorf("invariants the informer after it broke: got %v, want %v", got, tc.want)
			}
		})
	}
}
