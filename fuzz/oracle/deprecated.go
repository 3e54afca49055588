package oracle

import (
	"github.com/lwreplay/lwreplay/fuzz/internal/site"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

// The run record moved to package observe. These names stay for a release.

// Observation is observe.Observation.
//
// Deprecated: use observe.Observation.
type Observation = observe.Observation

// Op is observe.Op.
//
// Deprecated: use observe.Op.
type Op = observe.Op

// The handler operations (observe.OpAdd and the others).
//
// Deprecated: use observe.OpAdd, observe.OpUpdate, observe.OpDelete and
// observe.OpTombstone.
const (
	OpAdd       = observe.OpAdd
	OpUpdate    = observe.OpUpdate
	OpDelete    = observe.OpDelete
	OpTombstone = observe.OpTombstone
)

// Delivery is observe.Delivery.
//
// Deprecated: use observe.Delivery.
type Delivery = observe.Delivery

// Request is observe.Request.
//
// Deprecated: use observe.Request.
type Request = observe.Request

// HotLoop is observe.HotLoop.
//
// Deprecated: use observe.HotLoop.
type HotLoop = observe.HotLoop

// BoundEnd is observe.BoundEnd.
//
// Deprecated: use observe.BoundEnd.
type BoundEnd = observe.BoundEnd

// Serving is observe.Serving.
//
// Deprecated: use observe.Serving.
type Serving = observe.Serving

// Listing is observe.Listing.
//
// Deprecated: use observe.Listing.
type Listing = observe.Listing

// Spin is observe.Spin.
//
// Deprecated: use observe.Spin.
type Spin = observe.Spin

// StoreView is observe.StoreView.
//
// Deprecated: use observe.StoreView.
type StoreView = observe.StoreView

// GateAtomicFIFO is observe.GateAtomicFIFO.
//
// Deprecated: use observe.GateAtomicFIFO.
const GateAtomicFIFO = observe.GateAtomicFIFO

// ObjectSum is observe.ObjectSum.
//
// Deprecated: use observe.ObjectSum.
func ObjectSum(obj any) (sum uint64, ok bool) { return observe.ObjectSum(obj) }

// ViewOf is observe.ViewOf.
//
// Deprecated: use observe.ViewOf.
func ViewOf(items []any) (keys int, sum uint64, ok bool) { return observe.ViewOf(items) }

// Outcome is FinalState: fuzz.Outcome is what one input's run came to.
//
// Deprecated: use FinalState.
type Outcome = FinalState

// ResourceOutcome is ResourceFinalState.
//
// Deprecated: use ResourceFinalState.
type ResourceOutcome = ResourceFinalState

// OutcomeOf is FinalStateOf.
//
// Deprecated: use FinalStateOf.
func OutcomeOf(h *history.History) FinalState { return FinalStateOf(h) }

// DiffOutcome is DiffFinalState.
//
// Deprecated: use DiffFinalState.
func DiffOutcome(ref, got FinalState, m Masks) error { return DiffFinalState(ref, got, m) }

// Callers returns the calling goroutine's program counters.
//
// Deprecated: the harness keeps them; lwreplay's internal/site has them.
func Callers() []uintptr { return site.Callers() }

// CallerSite returns the site of the calling goroutine's stack.
//
// Deprecated: the harness names it; lwreplay's internal/site has it.
func CallerSite() string { return site.CallerSite() }

// StopGrace is observe.StopGrace.
//
// Deprecated: use observe.StopGrace.
const StopGrace = observe.StopGrace

// DefaultLiveBound is observe.DefaultLiveBound.
//
// Deprecated: use observe.DefaultLiveBound.
const DefaultLiveBound = observe.DefaultLiveBound
