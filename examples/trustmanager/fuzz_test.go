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

// options are the example's fuzz options: trust-manager's controller
// watched through its manager's Bundle informer (the probe's), the
// recorded user changes served at their recorded times so that they
// interleave with trust-manager's writes, Sieve's scenarios from every
// fault-free seed, controller-runtime's known bugs known, and the
// example's own invariant beside the built-in ones.
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
		Known:     append(crtarget.KnownFindings(), watchFilterLeak),
		Extra:     append([]fuzz.Invariant{targetsHoldBundle}, crtarget.Invariants()...),
	}
}

// watchFilterLeak is the goroutine apimachinery's watch.Filter leaves
// after stop: controller-runtime wraps a metadata-only informer's watch
// in it (newGVKFixupWatcher), and trust-manager's target cache is one.
// Once the reflector stops reading, the filter's goroutine blocks for ever
// on its unbuffered send (filter.go: fw.result <- filtered). Open
// upstream; fuzz/crtarget's TestManagerMetadataOnly allows it too.
var watchFilterLeak = fuzz.Known{
	Name:       "kubernetes#113254",
	Doc:        "watch.Filter's goroutine blocks for ever on its unbuffered send once the reflector that reads it has stopped (controller-runtime's metadata informers wrap their watches in it)",
	Site:       "k8s.io/apimachinery/pkg/watch.(*filteredWatch).loop",
	Invariants: []string{"clean-stop"},
}

// FuzzTrustManager fuzzes trust-manager's Bundle controller: go test runs
// its seeds (both cassettes, both client paths, no fault, and the
// scenarios made from them) and go test -fuzz FuzzTrustManager explores
// from them.
func FuzzTrustManager(f *testing.F) {
	fuzz.Run(f, options(f))
}
