package fuzz

import (
	"errors"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// The names a user's fuzz test writes, kept here beside Run and Options.
// Each is the oracle's (or harness's) own, under the name the examples
// have always used.

// Observation is what a run of a target saw (observe.Observation).
type Observation = observe.Observation

// Write is one write request of the target's as the replay answered it
// (history.WriteAnswer): Observation.Writes. It is the one user-facing
// name of it.
type Write = history.WriteAnswer

// Invariant is a named property every run of a correct target has
// (oracle.Invariant).
type Invariant = oracle.Invariant

// InvariantOption configures a user invariant (oracle.InvariantOption).
type InvariantOption = oracle.InvariantOption

// Scope says what of a run an invariant judges (oracle.Scope).
type Scope = oracle.Scope

// The scopes of an invariant (oracle.EndState, oracle.Along).
const (
	EndState = oracle.EndState
	Along    = oracle.Along
)

// ErrNotJudged is what an invariant's check wraps when the run gave it
// nothing to judge (oracle.ErrNotJudged).
var ErrNotJudged = oracle.ErrNotJudged

// Known is a finding known already (oracle.Known).
type Known = oracle.Known

// Mask is one field path, or a resource as a whole, same-outcome does not
// compare, with why (oracle.Mask): Options.Masks.
type Mask = oracle.Mask

// ErrMask says Options.Masks hold a mask without a resource or a why.
var ErrMask = errors.New("bad mask")

// AnyResource is the Mask.Resource of a mask of every resource
// (oracle.AnyResource).
const AnyResource = oracle.AnyResource

// ErrorDetail is the Signature detail of a user invariant's sentinel
// error, for Known.Details (oracle.ErrorDetail).
func ErrorDetail(sentinel error) string { return oracle.ErrorDetail(sentinel) }

// NewInvariant returns a user invariant for Options.Extra
// (oracle.NewInvariant).
func NewInvariant(name, doc string, check func(truth *history.Log, observed *Observation) error, opts ...InvariantOption) Invariant {
	return oracle.NewInvariant(name, doc, check, opts...)
}

// WithScope sets what a user invariant judges (oracle.WithScope).
func WithScope(s Scope) InvariantOption { return oracle.WithScope(s) }

// KnownSignature returns a known finding named by its signature's text
// (oracle.KnownSignature).
func KnownSignature(text string) (Known, error) { return oracle.KnownSignature(text) }

// Level is how a run's client reaches the replay (level.Level).
type Level = level.Level

// The levels (level.Typed, level.Wire).
const (
	Typed = level.Typed
	Wire  = level.Wire
)

// Target is client-go code a run drives against a replay
// (harness.Target); targets.Builtin are the built-in ones.
type Target = harness.Target

// Env is what a target gets to run against one replay (harness.Env).
type Env = harness.Env

// ErrTarget is what a target's error wraps when it could not be set up
// (harness.ErrTarget). A Container target's such error is no exit.
var ErrTarget = harness.ErrTarget

// Probe collects a target's notifications, store and HasSynced
// (harness.Probe).
type Probe = harness.Probe

// Gates are client-go feature gates a run sets (harness.Gates).
type Gates = harness.Gates
