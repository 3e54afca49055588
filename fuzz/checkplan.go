package fuzz

import (
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// CheckPlan runs the target once on the campaign's cassette i (modulo
// their count) and client path under plan. It judges it as Check judges an
// input. It is for plans fuzz bytes cannot say, such as a decision a
// where-parameter places. "crash-after-write:write=2" crashes the target
// right after its second write, wherever that falls among the decision
// points. Breaking faults are dropped unless Options.AllowBreaking, and
// opaque-rv beside actors, as from an input (see hostable). The outcome's Input is the plan's input when it has a
// byte form, else nil. Fail reports it as it reports any outcome.
func (c *Campaign) CheckPlan(t *testing.T, i int, watchList bool, plan faults.Plan) *Outcome {
	t.Helper()
	return c.CheckSeed(t, i, watchList, plan, 0)
}

// FaultFreeRun runs o's target once on o's first cassette, on the LIST
// path, with no fault and no scenario, and returns what the run saw. It
// fails t when the run is reported. A user invariant's own test judges
// such a run, and copies of its served history broken on purpose (see
// NewInvariant).
func FaultFreeRun(t *testing.T, o Options) *Observation {
	t.Helper()
	o.Plans, o.Scenarios = nil, false
	c, err := NewCampaign(o)
	if err != nil {
		t.Fatal(err)
	}
	out := c.CheckPlan(t, 0, false, faults.Plan{})
	if out.Failed() {
		t.Fatalf("fault-free run: got a report, want none:\n%s", out.Report)
	}
	return out.Observation
}

// Appended returns a copy of obs whose served history has evs appended to
// res's log: a run's history broken on purpose, for a user invariant's own
// test to judge (see FaultFreeRun). It fails t when they cannot be
// appended.
func Appended(t *testing.T, obs *Observation, res history.Resource, evs ...history.Event) *Observation {
	t.Helper()
	served, err := history.AppendEvents(obs.Served, res, evs...)
	if err != nil {
		t.Fatal(err)
	}
	judged := *obs
	judged.Served = served
	return &judged
}

// CheckSeed is CheckPlan with seed mixed into what seeds the run's
// randomness (harness.Spec.Seed; 0, a fuzz input's run, is CheckPlan).
// Runs of one plan with other seeds draw other backoffs and timeouts, as
// same-outcome's reference runs do. So a fault-free run with a seed of its
// own is one more correct run to judge against the reference pair. That is
// the false-alarm bar of examples/reconciler's TestFaultFreePairs.
// The outcome's Seed is seed and its report names it. Minimize and Save
// run its input, which does not hold the seed.
func (c *Campaign) CheckSeed(t *testing.T, i int, watchList bool, plan faults.Plan, seed uint64) *Outcome {
	t.Helper()
	path := byte(0)
	if watchList {
		path = watchListBit
	}
	in := decodeInput([]byte{byte(i % len(c.cassettes)), path}, len(c.cassettes), c.opts)
	in.plan = hostable(plan, c.opts)
	fc := c.cassettes[in.cassette]
	spec := c.spec(in)
	spec.Seed = seed
	out := &Outcome{Input: inputFor(in), Cassette: fc.Path, CassetteIndex: in.cassette, WatchList: in.watchList, Gates: in.gates, Plan: in.plan, Level: spec.Level, Seed: seed}
	c.runOnce(t, spec, out)
	return out
}
