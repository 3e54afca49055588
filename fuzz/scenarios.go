package fuzz

import (
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/internal/engine"
	"github.com/lwreplay/lwreplay/fuzz/internal/scenario"
)

// Scenario is one of Sieve's classes of test plan, as data
// (Options.Scenarios).
type Scenario = scenario.Scenario

// MaxScenarioWrites bounds the writes a scenario places a crash after.
const MaxScenarioWrites = scenario.MaxWrites

// MaxScenarioWatches bounds the watches a scenario places a restart at.
const MaxScenarioWatches = scenario.MaxWatches

// Scenarios are the scenario registry, in the order their plans run.
var Scenarios = scenario.Scenarios

// scenarioKey is what an input's scenarios depend on: its cassette,
// client path and gates (the plan is empty).
type scenarioKey struct {
	cassette  int
	watchList bool
	gates     string
}

// scenarioRuns caches a campaign's scenario results per key: the plans
// that held and the first failing outcome. So every fault-free input of a
// key gets the same verdict however many share it. In a fuzzing worker
// that holds once the key's plans have all run (see scenario.Budget).
// The zero value is ready to use.
type scenarioRuns struct {
	mu sync.Mutex
	m  map[scenarioKey]*scenarioResult
}

// scenarioResult is one key's result: its plans, how many have held so
// far, and the first failing outcome (nil: none yet).
type scenarioResult struct {
	mu      sync.Mutex
	plans   []scenario.Plan // nil until the key's first fault-free run
	next    int             // plans[:next] held
	out     *Outcome
	longest time.Duration // the longest plan's check so far, in real time
}

// checkScenarios runs the scenarios of out, a fault-free input's outcome
// that held or met a known finding. It returns the first that fails (see
// Options.Scenarios). When all hold or meet known findings, it returns
// out, noting those in out.KnownScenarios. Plans that held are not run
// again for the key. In a fuzzing worker it starts plans while startsPlan
// allows, begun the input's start, then returns out. Elsewhere it runs
// them all.
func (c *Campaign) checkScenarios(t *testing.T, out *Outcome, begun, deadline time.Time) *Outcome {
	t.Helper()
	key := scenarioKey{cassette: out.CassetteIndex, watchList: out.WatchList, gates: out.Gates.String()}
	c.scenarios.mu.Lock()
	if c.scenarios.m == nil {
		c.scenarios.m = map[scenarioKey]*scenarioResult{}
	}
	res, ok := c.scenarios.m[key]
	if !ok {
		res = &scenarioResult{}
		c.scenarios.m[key] = res
	}
	c.scenarios.mu.Unlock()
	res.mu.Lock()
	defer res.mu.Unlock()
	if res.out != nil {
		return res.out
	}
	if res.plans == nil {
		res.plans = scenario.PlansOf(out.Observation, c.res.Name(), out.WatchList)
	}
	budget := engine.Current() == engine.Worker
	for ; res.next < len(res.plans); res.next++ {
		if budget && !scenario.StartsPlan(time.Since(begun), res.longest) {
			return out
		}
		p := res.plans[res.next]
		started := time.Now()
		o := c.checkPlanAs(t, out, p.Plan, p.Scenario, deadline)
		res.longest = max(res.longest, time.Since(started))
		if o.OutOfTime {
			t.Logf("scenario %s plan %s ran out of the input's time: the next input of its key takes it up", p.Scenario, planText(p.Plan))
			return out
		}
		if o.Failed() {
			res.out = c.exact(t, out, o, deadline)
			res.out.KnownScenarios = slices.Clone(out.KnownScenarios)
			return res.out
		}
		if o.Known != "" {
			out.KnownScenarios = append(out.KnownScenarios, fmt.Sprintf("%s plan %s: known finding %s", p.Scenario, planText(p.Plan), o.Known))
		}
	}
	return out
}

// checkPlanAs runs plan, scenario's, on the cassette, client path and
// gates of out, its runs ending by deadline (zero: none).
func (c *Campaign) checkPlanAs(t *testing.T, out *Outcome, plan faults.Plan, name string, deadline time.Time) *Outcome {
	t.Helper()
	in := decodeInput(out.Input, len(c.cassettes), c.opts)
	in.plan = hostable(plan.Only(faults.Legal), c.opts)
	in.deadline = deadline
	return c.checkDecoded(t, in, name)
}

// exact returns o, a scenario's failure, with its plan placed at the
// points of the run resource where its decisions fired (scenario.Exact).
// It does so when that plan has a byte form and fails too; else it
// returns o itself, as it does when that plan's check runs out of time.
func (c *Campaign) exact(t *testing.T, base, o *Outcome, deadline time.Time) *Outcome {
	t.Helper()
	plan, ok := scenario.Exact(o.Plan, o.Observation.Fired, c.res.Name())
	if !ok {
		return o
	}
	if e := c.checkPlanAs(t, base, plan, o.Scenario, deadline); e.Failed() {
		return e
	}
	return o
}
