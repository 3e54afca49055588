package widgets

import (
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
