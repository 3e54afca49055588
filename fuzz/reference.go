package fuzz

import (
	"slices"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// sameOutcome is the name of the invariant reference runs are for.
const sameOutcome = "same-outcome"

// observe runs spec (harness.Observe) and returns what it saw and the
// reference same-outcome judges it against.
func (c *Campaign) observe(t *testing.T, spec harness.Spec) (*observe.Observation, *oracle.Reference) {
	t.Helper()
	obs := harness.Observe(t, spec)
	if obs == nil {
		return nil, nil
	}
	return obs, c.reference(t, spec, obs)
}

// reference returns the reference obs, a run of spec, is judged against
// by same-outcome: nil when the campaign does not judge same-outcome (see
// reference.Runs.For for the other cases).
func (c *Campaign) reference(t *testing.T, spec harness.Spec, obs *observe.Observation) *oracle.Reference {
	t.Helper()
	if !slices.Contains(c.builtinNames(), sameOutcome) {
		return nil
	}
	return c.refs.For(t, spec, obs)
}
