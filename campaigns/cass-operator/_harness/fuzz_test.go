package cassharness

import (
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/replayer"
)

// options are the campaign's fuzz options: the user's cassettes on both
// client paths, replayed at their recorded pace (so the user's delete
// meets the operator's finalizer, and the recreate comes after the
// operator let the first datacenter go), Sieve's scenarios from every
// fault-free seed, and the user's invariant beside the built-in ones.
// controller-runtime's known bugs are not cass-operator's.
func options(t fuzz.Target) fuzz.Options {
	return fuzz.Options{
		Cassettes: cassettes,
		Resource:  datacenters,
		Target:    t,
		Pace:      replayer.Pace{Mode: replayer.PaceRecorded},
		Scenarios: true,
		Known:     append(crtarget.KnownFindings(), issue118),
		Extra:     []fuzz.Invariant{liveClaimsKept},
	}
}

// issue118 is k8ssandra/cass-operator#118, re-found by the stale-state
// scenario: a restarted operator served a stale list sees the deleted
// datacenter still being deleted, and deletes the claims (and scales down
// the StatefulSet) of the one recreated under its name. Known, so that a
// campaign counts it and goes on looking for others.
var issue118 = fuzz.Known{
	Name:       "cass-operator#118",
	Doc:        "a stale deletionTimestamp read after a restart makes ProcessDeletion delete, by name, the PVCs of a CassandraDatacenter recreated under the same name",
	Invariants: []string{"live-datacenter-claims-kept", "same-outcome"},
	Details:    map[string][]string{"same-outcome": {"persistentvolumeclaims (missing)"}},
}

// FuzzCassandra fuzzes cass-operator's CassandraDatacenter controller.
// go test runs its seeds: every cassette and client path, no fault, and
// the scenarios made from each fault-free run. go test -fuzz FuzzCassandra
// explores from them.
func FuzzCassandra(f *testing.F) {
	fuzz.Run(f, options(target(f)))
}
