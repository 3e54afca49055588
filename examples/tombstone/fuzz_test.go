package tombstone

import (
	"context"
	"fmt"
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// mirrorTarget runs the planted mirror as a fuzz target: its informer
// reads the replay through the run's ListerWatcher (typed while
// exploring, the real REST client when a failure is confirmed), a panic
// in its delete handler is reported to the run instead of ending the
// process, and the mirror itself is exposed for mirrorMatchesTruth.
var mirrorTarget = newMirrorTarget("configmap-mirror", "the planted configmap mirror of this example")

// newMirrorTarget returns a target running a mirror made with opts.
func newMirrorTarget(name, doc string, opts ...Option) fuzz.Target {
	return fuzz.Target{Name: name, Doc: doc, Run: func(ctx context.Context, env *fuzz.Env) error {
		lw, err := env.ListerWatcher(&corev1.ConfigMap{})
		if err != nil {
			return err
		}
		probe := env.Probe
		onPanic := WithPanicHandler(func(v, obj any) { probe.Panic(fmt.Sprintf("%v (object %T)", v, obj)) })
		m := NewFromListerWatcher(lw, append([]Option{onPanic}, opts...)...)
		// The probe's own handler records the deliveries (for the
		// timeline); the mirror's HasSynced and store are what is judged.
		if _, err := probe.AddEventHandler(m.informer, nil); err != nil {
			return err
		}
		probe.SetSynced(m.HasSynced)
		probe.SetStore(m.informer.GetStore().List)
		probe.Expose(m)
		return m.Run(ctx)
	}}
}

// mirrorMatchesTruth is a user invariant: at the end the mirror holds the
// data of exactly the configmaps of the truth's final state.
var mirrorMatchesTruth = fuzz.NewInvariant("mirror-matches-truth",
	"the mirror holds the data of exactly the configmaps of the final state",
	func(truth *history.Log, o *fuzz.Observation) error {
		m, ok := o.Exposed.(*Mirror)
		if !ok {
			return fmt.Errorf("exposed: got %T, want *Mirror", o.Exposed)
		}
		got := m.Snapshot()
		final := truth.StateAt(truth.End())
		want := make(map[string]bool, len(final))
		for _, obj := range final {
			want[obj.Key()] = true
			if _, ok := got[obj.Key()]; !ok {
				return fmt.Errorf("mirror: got no %s, want it (rv %s)", obj.Key(), obj.ResourceVersion)
			}
		}
		for k := range maps.Keys(got) {
			if !want[k] {
				return fmt.Errorf("mirror: got %s, want it gone", k)
			}
		}
		return nil
	})

// FuzzMirror explores legal fault plans over the shipped real cassettes;
// `go test -fuzz FuzzMirror ./examples/tombstone` finds the planted bug.
func FuzzMirror(f *testing.F) {
	fuzz.Run(f, fuzz.Options{
		Cassettes:  fuzz.Glob("../../cassettes/real-configmaps-pods-*.yaml"),
		Target:     mirrorTarget,
		Invariants: []string{"converged", "clean-stop", "mirror-matches-truth"},
		Extra:      []fuzz.Invariant{mirrorMatchesTruth},
	})
}

// foundByFuzzing is an input `go test -fuzz FuzzMirror` found:
// the paged LIST cassette, WatchList off, and a first watch answered 410
// Expired at once, so the relist misses deletes.
var foundByFuzzing = []byte("000\x86")

// fixedMirrorTarget is mirrorTarget with the fixed delete handler.
var fixedMirrorTarget = newMirrorTarget("configmap-mirror-fixed", "the configmap mirror of this example, with HandleDelete", WithFixedDelete())

func TestFoundInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		target     fuzz.Target
		wantFailed bool
	}{
		{name: "mirror - input found by fuzzing, planted handler - panics, fail", target: mirrorTarget, wantFailed: true},
		{name: "mirror - input found by fuzzing, fixed handler - pass", target: fixedMirrorTarget, wantFailed: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := fuzz.NewCampaign(fuzz.Options{
				Cassettes:  fuzz.Glob("../../cassettes/real-configmaps-pods-*.yaml"),
				Target:     tc.target,
				Invariants: []string{"converged", "clean-stop", "mirror-matches-truth"},
				Extra:      []fuzz.Invariant{mirrorMatchesTruth},
			})
			if err != nil {
				t.Fatalf("NewCampaign: got error %v, want none", err)
			}
			out := c.Check(t, foundByFuzzing)
			if tc.wantFailed && out.Observation != nil {
				testutil.RecordFinding(t, testutil.Finding{Finding: "planted: tombstone panics the example's delete handler (expire-watch:after=0,at=1)",
					ClientGo: fuzz.ClientGoVersion(), Gates: testutil.GatesOf(out.Observation.Gates, "WatchListClient"), Reproduced: boolInt(out.Failed()), Runs: 1})
			}
			if out.Failed() != tc.wantFailed {
				t.Fatalf("failed: got %v, want %v; report:\n%s", out.Failed(), tc.wantFailed, out.Report)
			}
			if tc.wantFailed && out.Results["clean-stop"] == nil {
				t.Errorf("clean-stop: got it held, want the handler's panic")
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
