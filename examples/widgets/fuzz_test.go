package widgets

import (
	"flag"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
)

// FuzzWidgets fuzzes the correct reconciler. go test runs its
// seeds: every widget cassette and client path, no fault and the
// plans of testdata/plans (a crash after write #2). go test -fuzz
// '^FuzzWidgets$' explores from them.
func FuzzWidgets(f *testing.F) {
	fuzz.Run(f, options(target(f, "widgets")))
}

// FuzzWidgetsStale fuzzes the reconciler with the planted stale-state bug
// (WithNameOnlyCleanup), from the same seeds as FuzzWidgets. go test -fuzz
// FuzzWidgetsStale searches for a restart served a stale view. In that
// view the recreated phoenix is its deleting predecessor. TestStaleRestart
// holds the plan that reaches it. Under plain go test it is skipped: its
// finding is the point.
func FuzzWidgetsStale(f *testing.F) {
	if fl := flag.Lookup("test.fuzz"); fl == nil || fl.Value.String() == "" {
		f.Skip("the planted bug: run go test -fuzz '^FuzzWidgetsStale$'")
	}
	fuzz.Run(f, options(target(f, "widgets-stale", WithNameOnlyCleanup())))
}
