package reconciler

import (
	"flag"
	"os"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
)

// options are the options of the example's fuzz tests. They take the shipped real
// cassettes. They add the reconciler's own invariant and crtarget's beside the
// built-in ones. (same-outcome is among them: the end state against fault-free
// reference runs.) Seeds crash it after each of its first four writes, and recreate
// a parent while its watch is away. The scenario plans (Options.Scenarios) are made
// from each fault-free seed's run. controller-runtime's known bugs are not its own.
// With $LWREPLAY_NO_PLAN_SEEDS set, the plan seeds are left out; the fault-free
// seeds stay. So bench/find-planted.sh measures what the search finds from nothing
// but the recordings.
func options(t fuzz.Target) fuzz.Options {
	plans := fuzz.Glob("testdata/plans/*.yaml")
	if os.Getenv("LWREPLAY_NO_PLAN_SEEDS") != "" {
		plans = nil
	}
	return fuzz.Options{
		Cassettes: cassettes,
		Target:    t,
		Extra:     append([]fuzz.Invariant{oneChildPerParent}, crtarget.Invariants()...),
		Plans:     plans,
		Scenarios: true,
		// controller-runtime's own known bugs (on v0.23: the priority
		// queue's shutdown leak, controller-runtime#3538) are logged, not
		// failed
		Known: crtarget.KnownFindings(),
	}
}

// FuzzReconciler fuzzes the correct reconciler. go test runs its seeds: every
// cassette and client path, no fault and a crash after each of its first four
// writes. go test -fuzz '^FuzzReconciler$' explores from them; it finds
// nothing.
func FuzzReconciler(f *testing.F) {
	fuzz.Run(f, options(target("children")))
}

// FuzzReconcilerMemo fuzzes the reconciler with the planted
// unobserved-state bug (WithMemo), from the same seeds. go test -fuzz
// FuzzReconcilerMemo ./examples/reconciler finds it. A parent deleted
// and created again while the watch was away is left without a child.
// Under plain go test it is skipped.
func FuzzReconcilerMemo(f *testing.F) {
	if fl := flag.Lookup("test.fuzz"); fl == nil || fl.Value.String() == "" {
		f.Skip("the planted bug: run go test -fuzz '^FuzzReconcilerMemo$'")
	}
	fuzz.Run(f, options(target("children-memo", WithMemo())))
}

// FuzzReconcilerPlanted fuzzes the reconciler with the planted bug
// (WithGenerateName), from the same seeds as FuzzReconciler. go test
// -fuzz FuzzReconcilerPlanted ./examples/reconciler finds the crash
// between a child's create and its parent's report. Under plain go test
// it is skipped: its finding is the point.
func FuzzReconcilerPlanted(f *testing.F) {
	if fl := flag.Lookup("test.fuzz"); fl == nil || fl.Value.String() == "" {
		f.Skip("the planted bug: run go test -fuzz '^FuzzReconcilerPlanted$'")
	}
	fuzz.Run(f, options(target("children-planted", WithGenerateName())))
}
