package tombstone

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// mirrorTarget runs the planted mirror as a fuzz target. Its informer
// reads the replay through the run's ListerWatcher: typed while
// exploring, the real REST client when a failure is confirmed. A panic
// in its delete handler is reported to the run, instead of ending the
// process. The mirror itself is exposed for mirrorMatchesTruth.
var mirrorTarget = newMirrorTarget("configmap-mirror", "the planted configmap mirror of this example")

// fixedMirrorTarget is mirrorTarget with the fixed delete handler.
var fixedMirrorTarget = newMirrorTarget("configmap-mirror-fixed", "the configmap mirror of this example, with HandleDelete", WithFixedDelete())

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

// watchListFlag fixes the client path of this package's fuzz targets:
// go test -fuzz '^FuzzMirrorFixed$' ./examples/tombstone -args -watchlist=on.
var watchListFlag = flag.String("watchlist", "auto", "client path of the fuzz targets: auto (the input picks), on or off")

// cassettesFlag is the pattern of the cassettes this package's fuzz
// targets replay: -args -cassettes='../../cassettes/*.yaml' for every
// shipped one.
var cassettesFlag = flag.String("cassettes", "../../cassettes/real-configmaps-pods-*.yaml", "pattern of the cassettes the fuzz targets replay")

// mirrorOptions are the options of the example's fuzz targets, on target.
func mirrorOptions(target fuzz.Target) fuzz.Options {
	o := fuzz.Options{
		Cassettes:  fuzz.Glob(*cassettesFlag),
		Target:     target,
		Invariants: []string{"converged", "clean-stop", "mirror-matches-truth"},
		Extra:      []fuzz.Invariant{mirrorMatchesTruth},
	}
	if *watchListFlag != "auto" {
		on := *watchListFlag == "on"
		o.WatchList = &on
	}
	return o
}

// FuzzMirror explores legal fault plans over the shipped real cassettes;
// `go test -run '^$' -fuzz '^FuzzMirror$' ./examples/tombstone` finds the planted bug.
func FuzzMirror(f *testing.F) {
	fuzz.Run(f, mirrorOptions(mirrorTarget))
}

// FuzzMirrorFixed is FuzzMirror on the fixed handler: with the same
// options and invariants, it finds nothing.
func FuzzMirrorFixed(f *testing.F) {
	fuzz.Run(f, mirrorOptions(fixedMirrorTarget))
}
