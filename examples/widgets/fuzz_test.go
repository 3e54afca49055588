package widgets

import (
	"flag"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
)

// FuzzWidgets fuzzes the correct reconciler: go test runs its seeds
// (every widget cassette and client path, no fault and the plans of
// testdata/plans: a crash after write #2) and go test -fuzz
// FuzzWidgets explores from them.
func FuzzWidgets(f *testing.F) {
	fuzz.Run(f, options(target(f, "widgets")))
}

// FuzzWidgetsStale fuzzes the reconciler with the planted stale-state bug
// (WithNameOnlyCleanup) from the same seeds: go test -fuzz
// FuzzWidgetsStale finds a restart served a stale LIST that shows the
// recreated widget's predecessor deleting, and the new widget's ConfigMap
// deleted. Under plain go test it is skipped: its finding is the point.
func FuzzWidgetsStale(f *testing.F) {
	if fl := flag.Lookup("test.fuzz"); fl == nil || fl.Value.String() == "" {
		f.Skip("the planted bug: run go test -fuzz FuzzWidgetsStale")
	}
	fuzz.Run(f, options(target(f, "widgets-stale", WithNameOnlyCleanup())))
}
