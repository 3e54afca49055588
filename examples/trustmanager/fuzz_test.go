package trustmanager

import (
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/replayer"
)

// cassettes are the recordings of a user driving trust-manager's world
// on a real kube-apiserver 1.37.2 (e2e's TestRecordTrustManager):
// WatchList, and LIST in pages of 2 then WATCH.
var cassettes = fuzz.Glob("testdata/trustmanager-*.yaml")

// options are the example's fuzz options. trust-manager's controller
// is watched through its manager's Bundle informer (the probe's). The
// recorded user changes are served at their recorded times, so that
// they interleave with trust-manager's writes. Sieve's scenarios come
// from every fault-free seed. controller-runtime's known bugs are
// known. The example's own invariant is beside the built-in ones.
func options(t testing.TB) fuzz.Options {
	target, err := Target("trust-manager", BundleOptions())
	if err != nil {
		t.Fatal(err)
	}
	return fuzz.Options{
		Cassettes: cassettes,
		Resource:  bundles,
		Target:    target,
		Pace:      replayer.Pace{Mode: replayer.PaceRecorded},
		Scenarios: true,
		Known:     KnownFindings(), // kubernetes#113254 and trust-manager's own
		Extra:     append([]fuzz.Invariant{targetsHoldBundle}, crtarget.Invariants()...),
	}
}

// FuzzTrustManager fuzzes trust-manager's Bundle controller. go test runs
// its seeds: both cassettes, both client paths, no fault, and the
// scenarios made from them. go test -fuzz FuzzTrustManager explores from
// them.
func FuzzTrustManager(f *testing.F) {
	fuzz.Run(f, options(f))
}
