package fuzz

import (
	"slices"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/internal/reference"
	"github.com/lwreplay/lwreplay/fuzz/internal/report"
	"github.com/lwreplay/lwreplay/fuzz/internal/serving"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// judge is a campaign's judging role: the invariants it checks, the
// reference runs same-outcome compares with, the known findings, and the
// report of a verdict.
type judge struct {
	opts  Options
	res   history.Resource
	known []oracle.Known
	refs  *reference.Runs // the reference runs same-outcome judges against
}

// verdict checks the campaign's invariants on obs against ref into out,
// and names what broke: the breaking faults, a known finding, the report.
func (j *judge) verdict(out *Outcome, obs *observe.Observation, ref *oracle.Reference) {
	out.Observation, out.Reference = obs, ref
	out.Results, out.NotJudged = j.results(obs, ref)
	out.Breaking = serving.FiredBreaking(obs)
	sig := out.Signature()
	broke := len(sig.Invariants) > 0
	out.Expected = broke && len(out.Breaking) > 0
	out.Known = ""
	if broke && !out.Expected {
		for _, k := range j.known {
			if k.Matches(sig) {
				out.Known = k.Name
				break
			}
		}
		if out.Known == "" {
			if names, ok := oracle.KnownCover(out.Results, sig, j.known); ok {
				out.Known = strings.Join(names, " + ")
			}
		}
	}
	out.Report = j.report(out)
}

// results checks the campaign's invariants on obs: each one's result, and
// why those not judged were not.
func (j *judge) results(obs *observe.Observation, ref *oracle.Reference) (results map[string]error, notJudged map[string]string) {
	results, notJudged = map[string]error{}, map[string]string{}
	if names := j.builtinNames(); len(names) > 0 {
		results, notJudged = oracle.JudgeAgainst(obs, ref, names)
	}
	for _, inv := range j.opts.Extra {
		if len(j.opts.Invariants) == 0 || slices.Contains(j.opts.Invariants, inv.Name) {
			err, why := oracle.JudgeOne(inv, obs)
			results[inv.Name] = err
			if why != "" {
				notJudged[inv.Name] = why
			}
		}
	}
	return results, notJudged
}

// report renders the broken invariants of out ("" when none broke).
func (j *judge) report(out *Outcome) string {
	var in []byte
	if out.Input != nil {
		in = CanonicalInput(out.Input)
	}
	return report.Text(report.Facts{Results: out.Results, NotJudged: out.NotJudged, Signature: out.Signature(), Known: out.Known,
		Observation: out.Observation, Resource: j.res, Cassette: out.Cassette, WatchList: out.WatchList, Level: out.Level,
		Pace: j.opts.Pace, Latency: harness.Latency(j.opts.Latency), Plan: planText(out.Plan), Actors: actorNames(j.opts.Actors),
		FaultsOnActors: j.opts.FaultsOnActors, Scenario: out.Scenario, Seed: out.Seed, Input: in})
}

// endStateOnly reports whether every invariant out broke judges the end
// state only (oracle.EndState): a longer run may change the verdict.
func (j *judge) endStateOnly(out *Outcome) bool {
	broke := false
	for name, err := range out.Results {
		if err == nil {
			continue
		}
		broke = true
		if inv, ok := j.invariant(name); !ok || inv.Scope != oracle.EndState {
			return false
		}
	}
	return broke
}

// invariant returns the built-in or user invariant called name.
func (j *judge) invariant(name string) (oracle.Invariant, bool) {
	if inv, ok := oracle.LookupInvariant(name); ok {
		return inv, true
	}
	for _, inv := range j.opts.Extra {
		if inv.Name == name {
			return inv, true
		}
	}
	return oracle.Invariant{}, false
}

// builtinNames returns the built-in invariants the campaign checks.
func (j *judge) builtinNames() []string {
	var out []string
	for _, inv := range oracle.Invariants {
		if len(j.opts.Invariants) == 0 {
			out = append(out, inv.Name)
			continue
		}
		for _, n := range j.opts.Invariants {
			if n == inv.Name {
				out = append(out, inv.Name)
			}
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}

// sameOutcome is the name of the invariant reference runs are for.
const sameOutcome = "same-outcome"

// reference returns the reference that same-outcome judges obs, a run of
// spec, against. It is nil when the campaign does not judge same-outcome
// (see reference.Runs.For for the other cases). ok is false when a
// reference run was cut short at spec.Deadline.
func (j *judge) reference(t *testing.T, spec harness.Spec, obs *observe.Observation) (ref *oracle.Reference, ok bool) {
	t.Helper()
	if !slices.Contains(j.builtinNames(), sameOutcome) {
		return nil, true
	}
	return j.refs.For(t, spec, obs)
}
