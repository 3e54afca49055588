package eck

import (
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
)

// options are the example's fuzz options. They take the Beat cassettes
// on both client paths, and Sieve's scenarios from every fault-free
// seed. They add the example's own invariant beside the built-in ones.
// controller-runtime's known bugs are not ECK's.
func options(t fuzz.Target) fuzz.Options {
	return fuzz.Options{
		Cassettes: cassettes,
		Resource:  beats,
		Target:    t,
		Scenarios: true,
		Known:     crtarget.KnownFindings(),
		Extra:     []fuzz.Invariant{vehicleMatchesSpec},
	}
}

// FuzzBeats fuzzes ECK's Beat controller. go test runs its seeds: every
// cassette and client path, no fault, and the scenarios made from each
// fault-free run. go test -fuzz FuzzBeats explores from them.
func FuzzBeats(f *testing.F) {
	fuzz.Run(f, options(target(f)))
}
