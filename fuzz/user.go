package fuzz

import (
	"errors"
	"fmt"

	"github.com/lwreplay/lwreplay/history"
)

// ErrUserInvariant wraps the failure of a user's invariant, so that a
// report can tell it from the built-in ones.
var ErrUserInvariant = errors.New("user invariant broken")

// NewInvariant returns a user invariant for Options.Extra: check gets the
// history the replayer served (the truth) and what the run observed,
// including what the target exposed with Probe.Expose, and returns nil
// when the property holds. Its error is reported wrapped in
// ErrUserInvariant; a panic in check is reported as its failure.
//
//	mirrorMatches := fuzz.NewInvariant("mirror-matches-truth",
//		"the mirror holds every configmap of the final state",
//		func(truth *history.Log, o *fuzz.Observation) error { ... })
func NewInvariant(name, doc string, check func(truth *history.Log, observed *Observation) error) Invariant {
	return Invariant{Name: name, Doc: doc, Guarantee: "user invariant", Check: func(o *Observation) error {
		if err := needTruth(o, ErrUserInvariant); err != nil {
			return err
		}
		if err := check(o.Truth, o); err != nil {
			return fmt.Errorf("%w: %w", ErrUserInvariant, err)
		}
		return nil
	}}
}

// checkOne runs one invariant on o, turning a panic of its check into its
// failure.
func checkOne(inv Invariant, o *Observation) (err error) {
	if o == nil {
		return fmt.Errorf("%w: nil observation", ErrNoObservation)
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %s panicked: %v", ErrUserInvariant, inv.Name, p)
		}
	}()
	return inv.Check(o)
}

// invariant returns the built-in or user invariant called name.
func (c *Campaign) invariant(name string) (Invariant, bool) {
	if inv, ok := LookupInvariant(name); ok {
		return inv, true
	}
	for _, inv := range c.opts.Extra {
		if inv.Name == name {
			return inv, true
		}
	}
	return Invariant{}, false
}

// builtinNames returns the built-in invariants the campaign checks.
func (c *Campaign) builtinNames() []string {
	var out []string
	for _, inv := range Invariants {
		if len(c.opts.Invariants) == 0 {
			out = append(out, inv.Name)
			continue
		}
		for _, n := range c.opts.Invariants {
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
