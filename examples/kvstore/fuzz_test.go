package kvstore

import (
	"flag"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
)

// FuzzKVStore fuzzes the correct operator with the cluster's own
// controllers beside it. go test runs its seeds: every KVStore cassette
// and client path, no fault, and Sieve's scenarios made from each
// fault-free run. go test -fuzz '^FuzzKVStore$' explores from them.
func FuzzKVStore(f *testing.F) {
	fuzz.Run(f, options(f, target(f, "kvstore")))
}

// FuzzKVStoreStatusCleanup fuzzes the operator with the planted
// stale-state bug (WithStatusCleanup), from the same seeds. go test
// -fuzz '^FuzzKVStoreStatusCleanup$' searches for a run in which the
// cached StatefulSet status lags while the KVStore is scaled down. There
// the planted cleanup deletes a running pod's PVC (pvc-outlives-pod).
// Under plain go test it is skipped: its finding is the point.
func FuzzKVStoreStatusCleanup(f *testing.F) {
	if fl := flag.Lookup("test.fuzz"); fl == nil || fl.Value.String() == "" {
		f.Skip("the planted bug: run go test -fuzz '^FuzzKVStoreStatusCleanup$'")
	}
	fuzz.Run(f, options(f, target(f, "kvstore-status-cleanup", WithStatusCleanup())))
}
