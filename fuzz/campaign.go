package fuzz

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	clientfeatures "k8s.io/client-go/features"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/internal/cassettes"
	"github.com/lwreplay/lwreplay/fuzz/internal/engine"
	"github.com/lwreplay/lwreplay/fuzz/internal/reference"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/fuzz/targets"
	"github.com/lwreplay/lwreplay/history"
)

// Campaign is a fuzzing campaign: a target, the cassettes it replays and
// the invariants it is held to. Run drives one from go test -fuzz;
// Explore (the lwreplay fuzz command) drives several from random inputs.
// It is safe for concurrent use.
type Campaign struct {
	opts      Options
	target    Target
	res       history.Resource
	cassettes []fuzzCassette
	plans     [][]byte     // saved plans, encoded as input bytes 2 on
	judge     judge        // the invariants, reference runs and known findings
	scenarios scenarioRuns // the results of Options.Scenarios, per key
	spins     []string     // the sites of known busy loops (harness.Spec.KnownSpins)
}

// NewCampaign loads and builds every cassette o.Cassettes names and
// returns a campaign over them. The error names the cassette that does
// not load, does not build or lacks the resource.
func NewCampaign(o Options) (*Campaign, error) {
	c := &Campaign{opts: o, target: o.Target, res: resourceOf(o)}
	c.judge = judge{opts: o, res: c.res, refs: reference.New(o.Masks...)}
	if c.target.Run == nil {
		c.target, _ = targets.Lookup("informer")
	}
	if c.target.Name == "" {
		return nil, fmt.Errorf("%w: a target needs a name", harness.ErrTarget)
	}
	if err := harness.CheckGates(o.Gates); err != nil {
		return nil, err
	}
	if err := checkActors(o.Actors); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, inv := range o.Extra {
		if _, builtin := oracle.LookupInvariant(inv.Name); builtin || seen[inv.Name] || inv.Name == "" || inv.Check == nil {
			return nil, fmt.Errorf("%w: user invariant %q: want a unique name and a check", oracle.ErrUnknownInvariant, inv.Name)
		}
		seen[inv.Name] = true
	}
	for _, m := range o.Masks {
		if m.Resource == "" || m.Why == "" {
			return nil, fmt.Errorf("%w: mask %q of %q: want a resource (or fuzz.AnyResource) and why", ErrMask, m.Path, m.Resource)
		}
	}
	for _, name := range o.Invariants {
		if _, ok := c.judge.invariant(name); !ok {
			return nil, fmt.Errorf("%w: %q", oracle.ErrUnknownInvariant, name)
		}
	}
	var err error
	if c.judge.known, err = knownOf(o); err != nil {
		return nil, err
	}
	c.spins = knownSpins(c.judge.known)
	if o.Recordings != nil {
		c.cassettes, err = cassettes.Of(o.Recordings.recs, c.res, false)
	} else {
		c.cassettes, err = cassettes.Load(o.Cassettes, c.res, loadOptions(o)...)
	}
	if err != nil {
		return nil, err
	}
	if o.ExpectOwn {
		for i, fc := range c.cassettes {
			if fc.Reproducer != nil {
				continue // replayed verbatim: its writes are answered as recorded
			}
			if c.cassettes[i].History, err = history.WithoutOwn(fc.History, nil); err != nil {
				return nil, fmt.Errorf("cassette %s: %w", fc.Path, err)
			}
		}
	}
	if c.plans, err = cassettes.LoadPlans(o.Plans); err != nil {
		return nil, err
	}
	return c, nil
}

// Target returns the campaign's target.
func (c *Campaign) Target() Target { return c.target }

// Cassettes returns the names of the campaign's cassettes, in input order:
// each recording's file paths, separated by spaces (cassette.Recording's
// Name).
func (c *Campaign) Cassettes() []string {
	out := make([]string, len(c.cassettes))
	for i, fc := range c.cassettes {
		out[i] = fc.Path
	}
	return out
}

// Seeds returns the seed inputs, per cassette and on each WatchList path
// the options leave open:
//   - no fault, with client-go's gates as they are;
//   - no fault, with the input's gates off, when Options.Gates fixes none;
//   - each saved plan (Options.Plans).
func (c *Campaign) Seeds() [][]byte {
	var out [][]byte
	for i := range c.cassettes {
		seed := func(watchList bool, gatesOff []clientfeatures.Feature, plan []byte) {
			out = append(out, Input{Cassette: byte(i), WatchList: watchList, GatesOff: gatesOff, Plan: plan}.Bytes())
		}
		// no fault, under each of the seeds' gate sets; a path
		// Options.WatchList fixes is its own whatever the input says
		for _, off := range seedGatesOff(c.opts.Gates) {
			seed(true, off, nil)
			if c.opts.WatchList == nil {
				seed(false, off, nil)
			}
		}
		plans := c.plans
		if c.opts.DecisionSeeds {
			plans = append(slices.Clip(plans), decisionSeeds()...)
		}
		for _, p := range plans {
			if c.opts.WatchList == nil || *c.opts.WatchList {
				seed(true, nil, p)
			}
			if c.opts.WatchList == nil || !*c.opts.WatchList {
				seed(false, nil, p)
			}
		}
	}
	return out
}

// DecisionSeedPoints are the decision points Options.DecisionSeeds places
// a decision at. They are a run's first requests and frames, where a
// client's first LIST, first watch and first events are.
var DecisionSeedPoints = []int{0, 1, 2, 3, 4, 5, 8}

// decisionSeeds returns the plan bytes of one legal one-point decision of
// each fault choice at each of DecisionSeedPoints.
func decisionSeeds() [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	for k := range faults.FirstPersistentByte - faults.FirstFaultByte {
		b := byte(faults.FirstFaultByte + k)
		p := faults.Decode([]byte{b})
		if seen[p.String()] {
			break // the choices wrapped around
		}
		seen[p.String()] = true
		if len(p.Only(faults.Legal).Decisions) != 1 {
			continue
		}
		for _, at := range DecisionSeedPoints {
			seed := make([]byte, at+1)
			seed[at] = b
			out = append(out, seed)
		}
	}
	return out
}

// Outcome is what one input's run came to.
type Outcome struct {
	// Input is the fuzz input.
	Input []byte
	// Cassette is the path of the cassette replayed.
	Cassette string
	// CassetteIndex is that cassette's index in the campaign's
	// Options.Cassettes (the input's byte 0, modulo their count).
	CassetteIndex int
	// WatchList is the client path.
	WatchList bool
	// Gates are the client-go gates the run set (see Options.AtomicFIFO).
	Gates Gates
	// Plan is the fault plan acted out.
	Plan faults.Plan
	// Level is the level of the run Observation and Results come from: the
	// wire level when a typed-level violation was confirmed there.
	Level Level
	// Seed is the run's harness.Spec.Seed: 0 for an input's run (Check,
	// CheckPlan), CheckSeed's seed otherwise.
	Seed uint64
	// Observation is what the run saw.
	Observation *observe.Observation
	// Reference is the fault-free reference runs' outcome same-outcome
	// judged the run against (nil: none; see oracle.Reference).
	Reference *oracle.Reference
	// Results holds each checked invariant's result, by name (nil: held,
	// or not judged).
	Results map[string]error
	// NotJudged holds the checked invariants the run gave nothing to judge,
	// by name, each with why. Examples are an end-state invariant on an
	// unsettled run, or a promise client-go does not make under the run's
	// gates.
	NotJudged map[string]string
	// Report is the human-readable report of the broken invariants; ""
	// when all held.
	Report string
	// Breaking names the breaking faults that fired, each once.
	Breaking []string
	// Expected is true when an invariant broke after a breaking fault
	// fired: the violation is the fault's doing, not a bug.
	Expected bool
	// Unconfirmed is the report of a violation a confirming run did not
	// repeat ("" otherwise); it is not a failure. A typed-level violation is
	// confirmed at the wire level. An end state broken on a run that ended
	// early is confirmed on the run to its watchdog (harness.Spec.FullRun).
	Unconfirmed string
	// Scenario names the scenario (Scenarios) whose plan the outcome's run
	// acted out, when Check of a fault-free input returned a scenario's
	// failure (Options.Scenarios); "" otherwise.
	Scenario string
	// Known names the known finding (Options.Known, KnownFindings) whose
	// signature the run's matches; "" when none does. It is not a
	// failure.
	Known string
	// KnownScenarios lists the scenario plans this check ran whose runs met a
	// known finding, one line each ("stale-state plan …: known finding …").
	// Those runs judged nothing, as the check's own run does when Known is
	// set.
	KnownScenarios []string
	// OutOfTime says a run of the check (its own, a wire-level one, a
	// reference or scenario run) was cut short at a fuzzing worker's input
	// budget (engine.InputBudget). Nothing was judged: the input is left
	// for a run without a deadline, go test -run.
	OutOfTime bool
}

// Failed reports whether the outcome is a bug to report: an invariant
// broke under legal faults only, and not as a known finding does.
func (o *Outcome) Failed() bool { return o.Report != "" && !o.Expected && o.Known == "" }

// Check runs the target once on data and judges it. data is an input in
// the input layout (see InputLayout, DecodeInput). It holds the cassette,
// the client path and gates (where Options do not fix them) and the fault
// plan. The run is at Options.Level. A violation found at the typed level
// is run again at the wire level, and only a violation the wire level
// repeats is reported.
//
// With Options.Scenarios, an input without a fault that holds also runs
// the Scenarios made from its run, once per cassette, client path and
// gates. Check returns the first of them that fails. Its Scenario is set.
// Its Input is the plan's byte form where it has one, else nil.
func (c *Campaign) Check(t *testing.T, data []byte) *Outcome {
	t.Helper()
	begun := time.Now()
	in := decodeInput(data, len(c.cassettes), c.opts)
	if engine.Current() == engine.Worker {
		in.deadline = begun.Add(engine.InputBudget)
	}
	fc := c.cassettes[in.cassette]
	if fc.Reproducer != nil {
		in.plan, in.watchList = faults.Plan{}, fc.WatchList
	}
	out := c.checkDecoded(t, in, "")
	out.Input = append([]byte(nil), data...)
	if c.opts.Scenarios && fc.Reproducer == nil && len(in.plan.Decisions) == 0 && !out.Failed() {
		// a known finding of the input's own run judges nothing of the
		// target's other bugs: its scenarios run all the same
		return c.checkScenarios(t, out, begun, in.deadline)
	}
	return out
}

// checkDecoded runs and judges in as Check does: at Options.Level, a
// typed-level violation confirmed at the wire level. The outcome's Input
// is in's byte form, nil when its plan has none; scenario names the
// scenario whose plan in's is ("" for none).
func (c *Campaign) checkDecoded(t *testing.T, in input, scenario string) *Outcome {
	t.Helper()
	fc := c.cassettes[in.cassette]
	spec := c.spec(in)
	out := &Outcome{Input: inputFor(in), Cassette: fc.Path, CassetteIndex: in.cassette, WatchList: in.watchList, Gates: in.gates, Plan: in.plan, Level: spec.Level, Scenario: scenario}
	c.runOnce(t, spec, out)
	if out.Report != "" && out.Known == "" && spec.Level == Typed {
		typed := out.Report
		spec.Level = Wire
		out.Level = Wire
		c.runOnce(t, spec, out)
		if out.Report == "" && !out.OutOfTime {
			out.Unconfirmed = typed
		}
	}
	if out.Failed() && out.Observation != nil && out.Observation.EndedEarly && c.judge.endStateOnly(out) {
		// The run ended early, caught up and quiet. A requeue may still have
		// been due: the end state is judged on the run to its watchdog.
		// A failure it repeats is reported from the early run: the same
		// input, a shorter reproducer. One it breaks another way is
		// reported from the run to the watchdog: the early run's end state
		// was not the end.
		early := *out
		spec.FullRun = true
		c.runOnce(t, spec, out)
		switch {
		case out.OutOfTime:
		case out.Report == "":
			out.Unconfirmed = early.Report + "\n(held once the run went on to its watchdog: the run had ended early, before a requeue of the target's was due)"
		case out.Signature().String() == early.Signature().String():
			*out = early
		}
	}
	return out
}

// workerSpinBound is a run's spin bound in a go test -fuzz worker. The
// engine ends a worker whose input runs 10 s of real time: internal/fuzz
// RunFuzzWorker panics "deadlocked!", a message it does not print. So a
// run that spins is given up sooner there, and reported.
const workerSpinBound = 5 * time.Second

// spec is the run an input asks for.
func (c *Campaign) spec(in input) harness.Spec {
	fc := c.cassettes[in.cassette]
	spin := time.Duration(0)
	if engine.Current() == engine.Worker {
		spin = workerSpinBound
	}
	return harness.Spec{SpinBound: spin, Deadline: in.deadline, History: fc.History, Resource: c.res, Plan: in.plan, Target: c.target, WatchList: in.watchList, Gates: in.gates,
		Level: c.opts.Level, LiveBound: c.opts.LiveBound, MaxBurst: c.opts.MaxBurst, MaxRate: c.opts.MaxRate, Reproducer: fc.Reproducer, Cache: fc.Cache, Pace: c.opts.Pace,
		Latency: c.opts.Latency, Actors: c.opts.Actors, FaultsOnActors: c.opts.FaultsOnActors, KnownSpins: c.spins}
}

// Fail minimizes and saves out (see Save) and fails t with the report.
func (c *Campaign) Fail(t *testing.T, out *Outcome) {
	t.Helper()
	saved, err := c.Save(t, out, artifactDir(t, c.target.Name, out))
	if saved == nil {
		t.Fatalf("target %s broke invariants:\n%s\n(no report written: %v)", c.target.Name, out.Report, err)
	}
	note := ""
	if err != nil {
		note = fmt.Sprintf("\n(report incomplete: %v)", err)
	}
	t.Fatalf("target %s broke invariants:\n%s\nreport: %s\nreproducer: %s%s", c.target.Name, saved.Outcome.Report,
		filepath.Join(saved.Dir, ReportFile), filepath.Join(saved.Dir, ReproducerFile), note)
}
