package fuzz

import (
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// runOnce is one run of an input, its stages in order. The rest is
// delegated: each stage is one package's role.
//
//  1. plan: the input, decoded, is spec (Campaign.spec: the cassette's
//     history, the client path and gates, the fault plan).
//  2. observe: the harness runs the target against the replay under the
//     plan, in virtual time, and records what it saw (package observe).
//  3. reference: the fault-free reference runs' outcome, for
//     same-outcome (package reference; nil when not judged).
//  4. judge: the invariants judge the record against the reference
//     (package oracle).
//  5. verdict: the signature of what broke, a known finding or a
//     breaking fault's doing, and the report (package report).
//
// A run or reference run cut short at spec.Deadline leaves out OutOfTime,
// judged nothing.
func (c *Campaign) runOnce(t *testing.T, spec harness.Spec, out *Outcome) {
	t.Helper()
	obs := harness.Observe(t, spec) // 2
	var ref *oracle.Reference
	ok := true
	if obs != nil {
		ref, ok = c.judge.reference(t, spec, obs) // 3
	}
	if obs != nil && (obs.OutOfTime || !ok) {
		*out = Outcome{Input: out.Input, Cassette: out.Cassette, CassetteIndex: out.CassetteIndex, WatchList: out.WatchList, Gates: out.Gates,
			Plan: out.Plan, Level: out.Level, Scenario: out.Scenario, Observation: obs, OutOfTime: true}
		return
	}
	c.judge.verdict(out, obs, ref) // 4, 5
}
