package oracle

import (
	"errors"
	"fmt"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

// ErrUserInvariant wraps the failure of a user's invariant, so that a
// report can tell it from the built-in ones.
var ErrUserInvariant = errors.New("user invariant broken")

// NewInvariant returns a user invariant for fuzz.Options.Extra. Its check
// gets the history the replayer served of the run's resource: the truth,
// with the target's writes. It also gets what the run observed:
//
//   - the served history of every resource (Observation.Served);
//   - the target's writes as the replay answered them (Observation.Writes);
//   - what the target exposed with Probe.Expose.
//
// check returns nil when the property holds. Its error is reported wrapped
// in ErrUserInvariant. A panic in check is reported as its failure. An
// error wrapping ErrNotJudged says the run gave it nothing to judge.
//
// By default the invariant judges the end state (Scope EndState). Like the
// built-in converged, it is not judged on a run whose faults kept firing
// until its end (Observation.Unsettled). No client could have converged
// there. An invariant on behaviour along the way says so with
// WithScope(Along), and is judged on every run. Examples are an order of
// deliveries, or a count of requests.
//
//	mirrorMatches := fuzz.NewInvariant("mirror-matches-truth",
//		"the mirror holds every configmap of the final state",
//		func(truth *history.Log, o *fuzz.Observation) error { ... })
func NewInvariant(name, doc string, check func(truth *history.Log, observed *observe.Observation) error, opts ...InvariantOption) Invariant {
	inv := Invariant{Name: name, Doc: doc, Guarantee: "user invariant", Scope: EndState, Check: func(o *observe.Observation) error {
		if err := needTruth(o, ErrUserInvariant); err != nil {
			return err
		}
		if err := check(o.TruthLog, o); err != nil {
			if errors.Is(err, ErrNotJudged) {
				return err
			}
			return fmt.Errorf("%w: %w", ErrUserInvariant, err)
		}
		return nil
	}}
	for _, opt := range opts {
		opt(&inv)
	}
	return inv
}

// InvariantOption configures a user invariant (NewInvariant).
type InvariantOption func(*Invariant)

// WithScope sets what the invariant judges: EndState (the default) or
// Along.
func WithScope(s Scope) InvariantOption {
	return func(inv *Invariant) { inv.Scope = s }
}
