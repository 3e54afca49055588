package fuzz

import (
	"testing"

	"github.com/lwreplay/lwreplay/faults"
)

// CheckPlan runs the target once on the campaign's cassette i (modulo
// their count) and client path under plan, and judges it as Check judges
// an input: for plans fuzz bytes cannot say, such as a decision a
// where-parameter places — "crash-after-write:write=2" crashes the target
// right after its second write, wherever that falls among the decision
// points. Breaking faults are dropped unless Options.AllowBreaking, as from
// an input. The outcome's Input is the plan's input when it has a byte
// form, else nil; Fail reports it as it reports any outcome.
func (c *Campaign) CheckPlan(t *testing.T, i int, watchList bool, plan faults.Plan) *Outcome {
	t.Helper()
	path := byte(0)
	if watchList {
		path = watchListBit
	}
	in := decodeInput([]byte{byte(i % len(c.cassettes)), path}, len(c.cassettes), c.opts)
	in.plan = plan
	if !c.opts.AllowBreaking {
		in.plan = plan.Only(faults.Legal)
	}
	fc := c.cassettes[in.cassette]
	spec := c.spec(in)
	out := &Outcome{Input: inputFor(in), Cassette: fc.path, CassetteIndex: in.cassette, WatchList: in.watchList, Gates: in.gates, Plan: in.plan, Level: spec.Level}
	c.judge(out, c.observe(t, spec))
	return out
}
