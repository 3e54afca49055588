package fuzz

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/fuzz/targets"
)

// sharedReproducers holds the project's regression reproducers
// (testdata/README.md).
const sharedReproducers = "../testdata/reproducers/"

// reproducerCase is a shared reproducer and what a correct client sees
// replaying it.
type reproducerCase struct {
	file       string
	tombstones bool // the traffic makes a correct client see tombstones
}

// TestSharedReproducersConverge replays each shared reproducer, verbatim
// and with no plan, to every built-in target. They are correct clients, so
// every invariant holds. Each ends holding the final state the
// reproducer's traffic builds, whatever fault that traffic carries.
func TestSharedReproducersConverge(t *testing.T) {
	tests := []reproducerCase{
		{"tombstone_fuzz.yaml", true},
		{"tombstone_mutate.yaml", true},
		{"opaque_rv.yaml", false},
	}
	paths, err := filepath.Glob(sharedReproducers + "*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		if !slices.ContainsFunc(tests, func(tt reproducerCase) bool { return tt.file == filepath.Base(p) }) {
			t.Errorf("reproducer %s: got no row in this test, want one", p)
		}
	}
	for _, target := range targets.Builtin {
		for _, tt := range tests {
			t.Run(target.Name+" - "+tt.file+" - pass", func(t *testing.T) {
				if why, unfit := verbatimUnfit(target); unfit {
					t.Skip(why)
				}
				c, err := NewCampaign(Options{Cassettes: []string{sharedReproducers + tt.file}, Target: target})
				if err != nil {
					t.Fatalf("NewCampaign: got error %v, want none", err)
				}
				if c.cassettes[0].Reproducer == nil {
					t.Fatalf("reproducer: got a cassette modelled from its history, want one replayed verbatim")
				}
				out := c.Check(t, []byte{0})
				if len(out.Plan.Decisions) != 0 {
					t.Errorf("plan: got %s, want none", out.Plan)
				}
				if out.Report != "" {
					t.Errorf("invariants: got broken\n%s\nwant all held", out.Report)
				}
				if got := len(out.Results); got != len(oracle.Invariants) {
					t.Errorf("invariants checked: got %d, want all %d", got, len(oracle.Invariants))
				}
				obs := out.Observation
				if final := obs.TruthLog.StateAt(obs.TruthLog.End()); len(obs.Store) != len(final) || len(final) == 0 {
					t.Errorf("store: got %d objects, want the %d of the final state", len(obs.Store), len(final))
				}
				if want := tt.tombstones && !tombstonesHidden(target); countOp(obs, observe.OpTombstone) > 0 != want {
					t.Errorf("tombstones delivered: got %v, want %v", !want, want)
				}
			})
		}
	}
}

// verbatimUnfit says why a target cannot be replayed a reproducer
// verbatim. A verbatim replay answers the recorded requests of a reflector
// of full objects with the recorded bodies. So a target gets answers no
// server would give it when it:
//   - asks other requests (its own LISTs and WATCHes: Target.NoWatchList);
//   - asks for metadata only (the verbatim replay does not convert to
//     PartialObjectMetadata, as kube-apiserver would).
func verbatimUnfit(target Target) (string, bool) {
	switch {
	case target.NoWatchList:
		return "its LISTs and WATCHes are its own, not the recorded reflector's", true
	case target.Name == "metadata-informer":
		return "it asks for PartialObjectMetadata, which a verbatim replay does not convert to", true
	}
	return "", false
}

// tombstonesHidden says whether target's API hides tombstones from it.
// The informer watcher (UntilWithSync's, and indexer-informer-watcher's
// own) unwraps a DeletedFinalStateUnknown into a DELETED event of its last
// known object. informerwatcher.go says: "We have no means of passing the
// additional information down using watch API".
func tombstonesHidden(target Target) bool {
	return target.Name == "until-with-sync" || target.Name == "indexer-informer-watcher"
}

// countOp counts the deliveries of op in obs.
func countOp(obs *observe.Observation, op observe.Op) int {
	n := 0
	for _, d := range obs.Deliveries {
		if d.Op == op {
			n++
		}
	}
	return n
}
