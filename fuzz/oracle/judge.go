package oracle

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lwreplay/lwreplay/fuzz/observe"
)

// Scope says what of a run an invariant judges, and so on which runs it is
// judged.
type Scope int

const (
	// EndState invariants judge where the run ended: the target's store or
	// its own state against the truth's final state. They are judged only
	// on a settled run (see Observation.Unsettled). A run whose faults
	// kept firing until its end gives a correct target no chance to
	// converge, and says nothing about whether it would have.
	EndState Scope = iota
	// Along invariants judge what the target did along the way (the order
	// of its deliveries, its requests, its panics): judged on every run.
	Along
)

// String returns "end-state" or "along".
func (s Scope) String() string {
	switch s {
	case EndState:
		return "end-state"
	case Along:
		return "along"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// ErrNotJudged wraps what an invariant's check returns when the run gives
// it nothing to judge. Say, a target that never synced, or a gate under
// which client-go promises nothing. The invariant is neither held nor broken,
// and the report says why.
var ErrNotJudged = errors.New("not judged")

// Judge runs the named invariants, or all of them when no name is given,
// on o and returns each one's result by name. A result is nil when the
// invariant holds or was not judged. A name that is not an invariant's
// maps to an error wrapping ErrUnknownInvariant. Judge has no reference,
// so same-outcome is not judged: JudgeAgainst gives it one.
func Judge(o *observe.Observation, names ...string) map[string]error {
	results, _ := JudgeAgainst(o, nil, names)
	return results
}

// JudgeNames judges the named built-in invariants (all when names is
// empty) on o without a reference. notJudged says which were not judged,
// and why.
func JudgeNames(o *observe.Observation, names []string) (results map[string]error, notJudged map[string]string) {
	return JudgeAgainst(o, nil, names)
}

// JudgeAgainst is JudgeNames with ref: the fault-free reference runs'
// outcome that same-outcome compares o's end state with (nil: not
// judged).
func JudgeAgainst(o *observe.Observation, ref *Reference, names []string) (results map[string]error, notJudged map[string]string) {
	run := Invariants
	results = make(map[string]error, max(len(names), len(Invariants)))
	notJudged = map[string]string{}
	if len(names) > 0 {
		run = nil
		for _, n := range names {
			inv, ok := LookupInvariant(n)
			if !ok {
				results[n] = fmt.Errorf("%w: %q", ErrUnknownInvariant, n)
				continue
			}
			run = append(run, inv)
		}
	}
	for _, inv := range run {
		err, why := JudgeOneAgainst(inv, o, ref)
		results[inv.Name] = err
		if why != "" {
			notJudged[inv.Name] = why
		}
	}
	return results, notJudged
}

// JudgeOne judges inv on o without a reference (see JudgeOneAgainst).
func JudgeOne(inv Invariant, o *observe.Observation) (err error, why string) {
	return JudgeOneAgainst(inv, o, nil)
}

// JudgeOneAgainst judges inv on o against ref by the one rule for every
// invariant, built-in or the user's. A run given up spinning is judged by
// no-spin alone. An EndState invariant is not judged on an unsettled run,
// nor on one that ended at a broken behaviour bound.
// A check that returns ErrNotJudged was not judged. A panic of the check
// is its failure. why says why it was not judged ("" when it was).
func JudgeOneAgainst(inv Invariant, o *observe.Observation, ref *Reference) (err error, why string) {
	if o == nil {
		return fmt.Errorf("%w: nil observation", ErrNoObservation), ""
	}
	if o.Spin != nil && inv.Name != "no-spin" {
		return nil, spinWhy(o)
	}
	if inv.Scope == EndState && o.Unsettled {
		return nil, unsettledWhy(o)
	}
	if inv.Scope == EndState && o.BoundEnd != nil {
		return nil, boundEndWhy(o)
	}
	if _, builtin := LookupInvariant(inv.Name); !builtin && inv.Scope == EndState && refusedWrites(o.Writes) {
		// a user's end state of a writing target is its writes' doing,
		// and the replay took none (the built-in ones judge the cache)
		return nil, "the replay took no writes (405 MethodNotAllowed: opaque resourceVersions, or a read-only replay), so the end state is not the target's doing"
	}
	err = checkOne(inv, o, ref)
	if errors.Is(err, ErrNotJudged) {
		return nil, strings.TrimPrefix(err.Error(), ErrNotJudged.Error()+": ")
	}
	return err, ""
}

// checkOne runs one invariant on o against ref, turning a panic of its
// check into its failure.
func checkOne(inv Invariant, o *observe.Observation, ref *Reference) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %s panicked: %v", ErrUserInvariant, inv.Name, p)
		}
	}()
	if inv.against != nil {
		return inv.against(o, ref)
	}
	return inv.Check(o)
}

// boundEndWhy says why a run that ended at a broken behaviour bound is
// not judged by its end state: it was cut there.
func boundEndWhy(o *observe.Observation) string {
	return fmt.Sprintf("the run ended at its first broken behaviour bound, %s, at %v: it looked no further, so where the target would have got is unknown",
		o.BoundEnd.Invariant, o.BoundEnd.At)
}

// unsettledWhy says why an unsettled run's end state is not judged.
func unsettledWhy(o *observe.Observation) string {
	return fmt.Sprintf("unsettled run: its last fault fired at %v and it ended at %v, within the live bound (%v) of it, "+
		"so whether the target would have converged is unknown", o.LastFaultAt, o.EndedAt, o.LiveBound)
}
