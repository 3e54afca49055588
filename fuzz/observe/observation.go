package observe

import (
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// Op is what a target's handler saw happen to one key.
type Op string

// Handler operations as client-go delivers them.
const (
	OpAdd    Op = "add"
	OpUpdate Op = "update"
	OpDelete Op = "delete"
	// OpTombstone is a delete delivered as a DeletedFinalStateUnknown.
	OpTombstone Op = "tombstone"
)

// Delivery is one notification a target's handler received.
type Delivery struct {
	// Op is what happened.
	Op Op
	// Key is the object's namespace/name key.
	Key string
	// RV is the resourceVersion of the object delivered (for a tombstone:
	// of its last known state; "" if unknown).
	RV string
	// UID is the object's UID.
	UID string
	// Bookmark is true when the object delivered was a bookmark object
	// (no name, only a resourceVersion): a bug in any case.
	Bookmark bool
	// At is when it was delivered (virtual time since the run started).
	At time.Duration
	// Synced says whether the target reported HasSynced before this
	// delivery.
	Synced bool
}

// Observation is what a run of a target saw, for the invariants to judge.
type Observation struct {
	// Resource is the resource the target watched.
	Resource history.Resource
	// Gates are the client-go gates that change list/watch behaviour, by
	// name, with the values the run had (WatchListClient is the run's
	// client path).
	Gates map[string]bool
	// TruthLog is the history the replayer actually served (after plan-level
	// faults), whose final state a converging target must reach.
	TruthLog *history.Log
	// Served is the history the replayer served, every resource's log
	// (TruthLog is the run's resource's). It holds the recorded events after
	// plan-level faults. Each write of the target's that stored something is
	// placed as an event where the replay answered it. A user invariant on
	// another resource the target reads or writes judges its log here
	// (Served.Log).
	Served *history.History
	// Store is the target's store at the end: objects by key; an object
	// without a name (a bookmark's) is under the empty key.
	Store map[string]*history.Object
	// BadStore describes items of the target's store, in store order:
	//   - those that are no Kubernetes object (left out of Store);
	//   - those that hold a field the target's store leaves out by design
	//     (harness.Target.StoreOmits; in Store too).
	BadStore []string
	// Deliveries are the handler notifications, in order.
	Deliveries []Delivery
	// Views are what the handler could read from the store at each
	// notification after the target synced. Only a target that registered its
	// handler with Probe.AddEventHandler has them.
	Views []StoreView
	// SyncedAt is when HasSynced first returned true (negative: never).
	SyncedAt time.Duration
	// InitialDelivered is how many distinct keys had been delivered when
	// HasSynced first returned true. Those are the keys of the notifications
	// before the first one the target made after it had synced.
	InitialDelivered int
	// SyncedRV is the resourceVersion of the state the target synced to.
	// That is the first complete listing the replay served: the last page of a
	// LIST chain, or a WatchList's initial-events-end bookmark. Its
	// store.Replace is the one HasSynced waits for. SyncedRV is "" when the
	// target never synced or no listing was completed.
	SyncedRV string
	// Fired are the plan's decisions that fired, in order.
	Fired []faults.Firing
	// LastFaultAt is when the plan's last decision fired (negative: none).
	LastFaultAt time.Duration
	// LiveBound is how long after LastFaultAt (or the start) the store may
	// take to converge: Spec.LiveBound, or 10 minutes.
	LiveBound time.Duration
	// ConvergedAt is the start of the final stretch in which the store equalled
	// the truth's final state. That is when it came to equal it for the last
	// time and stayed equal to the end of the run. It is negative when the
	// store did not equal it at the end. An earlier equal stretch that a later
	// change broke does not count.
	ConvergedAt time.Duration
	// EndedAt is when the run ended, in virtual time since its start. That is
	// after it stopped the target and gave the target's goroutines a minute to
	// end.
	EndedAt time.Duration
	// Requests are the target's requests, in the order it sent them.
	Requests []Request
	// Servings are the LIST pages and watch frames the replay sent the target,
	// every resource's, in the order it sent them. They say when each object
	// and event of Served reached the target.
	Servings []Serving
	// ServingsLogged says the replay logged what it served. The model
	// apiserver does; a reproducer's verbatim replay does not. When false,
	// Servings is empty and says nothing of what was served.
	ServingsLogged bool
	// Writes are the target's write requests as the replay answered them
	// (stored, refused, dry runs), in the order it answered them. They are the
	// requests behind the writes Served holds, with what each was answered.
	Writes []history.WriteAnswer
	// WritesLogged says the replay logged the target's writes. The model
	// apiserver does; a reproducer's verbatim replay does not yet. When false,
	// Writes is empty and says nothing of what the target wrote.
	WritesLogged bool
	// HotLoop is set when the target crossed the run's request bound. Virtual
	// time stands still while a goroutine loops without blocking. So the run
	// held the target's requests from then on and ended.
	HotLoop *HotLoop
	// BoundEnd is set when the run ended at its first broken behaviour bound
	// (no-hot-loop, no-write-storm, no-conflict-loop). From BoundEnd.At on the
	// run held every request of the target, and then ended, its report
	// complete. It is nil when no bound ended the run.
	BoundEnd *BoundEnd
	// Spin is set when the run was given up because a goroutine of it never
	// blocked (virtual time stood still without requests). The rest of the
	// observation is then empty, and no-spin alone judges it.
	Spin *Spin
	// OutOfTime says the run was cut short at its real-time deadline
	// (harness.Spec.Deadline): a fuzzing worker's input ran out of time,
	// as it does on a loaded machine. Nothing in it is judged; the input
	// is left for a run without a deadline.
	OutOfTime bool
	// Unsettled says the run ended less than LiveBound after its last fault
	// fired. That happens to a fault that fired after the watchdog plus the
	// live bound, as a plan that keeps firing does. The run's hard end is the
	// watchdog plus twice the bound. Whether the target would have converged
	// is then unknown, so converged, live and no-lost-delete are not judged.
	Unsettled bool
	// EndedEarly says the run ended before the watchdog (15 minutes, virtual).
	// The target had caught up with an exhausted replay whose plan could fire
	// no more, and had sent no request for a second.
	EndedEarly bool
	// Panics holds panics recovered from the target.
	Panics []string
	// PanicSites holds where each of Panics was raised. That is the innermost
	// function of the target's below the panic that is not client-go's or
	// Go's plumbing ("" when none is).
	PanicSites []string
	// FirstPanicAt is when the first of Panics happened (negative: none).
	FirstPanicAt time.Duration
	// Errors holds the errors the target recorded with Probe.Error and
	// the error its Run returned (other than the run's own cancellation),
	// in order.
	Errors []string
	// Exposed is what the target handed to Probe.Expose (nil if
	// nothing), for user invariants.
	Exposed any
	// Listings are the complete lists the target reported with
	// Probe.Listed, in order, for the consistent-list invariant.
	Listings []Listing
	// Crashes are when a fault crashed the target (crash-after-write), in
	// virtual time. Each time, a fresh instance of it started, cold.
	// Deliveries, Store, SyncedAt, SyncedRV, InitialDelivered and Views are
	// the last instance's. The panics and errors of every instance count.
	Crashes []time.Duration
	// Restarts are when a fault stopped the target (graceful-restart), in
	// virtual time. Its context was cancelled. Once its Run had returned, a
	// fresh instance started, cold (as after a crash).
	Restarts []time.Duration
	// Exits are when the target, a Pod's container (Target.Container),
	// exited: its Run returned an error while the run went on. After the
	// kubelet's backoff a fresh instance started, cold (as after a crash).
	// An exit's error is not one of Errors.
	Exits []Exit
	// NotStopped says the target's Run had not returned a minute (virtual)
	// after its context was cancelled.
	NotStopped bool
	// Actors names the cluster's own controllers the run started beside
	// the target (harness.Spec.Actors), in order: their writes are in
	// Served, never in Writes or Requests.
	Actors []string
	// ActorErrors says what went wrong with an actor; it is empty when nothing
	// did. An actor's Run may have returned an error (it could not start) or
	// panicked. Or it may not have returned StopGrace after the run cancelled
	// it. A run with one fails its test: it is the run's setup, not the
	// target, that broke.
	ActorErrors []string
	// LeftGoroutines counts the run's goroutines still blocked a minute
	// (virtual) after the target was stopped and returned.
	LeftGoroutines int
	// LeftStack is the stack of the first of them.
	LeftStack string
	// ErrorSites are the sites the errors Run returned name (a
	// harness.SiteError's): the code an error is about, such as a goroutine
	// that kept the target from stopping.
	ErrorSites []string
}

// GateAtomicFIFO is the name of client-go's AtomicFIFO feature gate
// (features.AtomicFIFO from v0.36 on). Observation.Gates says under this
// name whether the run had it. consistent-view is judged only with it on.
const GateAtomicFIFO = "AtomicFIFO"

// Exit is one exit of a container target (Observation.Exits).
type Exit struct {
	// At is when its Run returned, in virtual time.
	At time.Duration
	// RestartedAt is when a fresh instance started; -1 if the run ended
	// within the kubelet's backoff.
	RestartedAt time.Duration
	// Err is the error its Run returned.
	Err string
}
