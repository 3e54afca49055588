package oracle

import (
	"errors"
	"fmt"
	"sort"

	"github.com/lwreplay/lwreplay/fuzz/internal/content"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

// Invariant is a named property every run of a correct target has, judged
// on what the run observed.
type Invariant struct {
	// Name is the kebab-case name: the CLI value, subtest name and report key.
	Name string
	// Doc says in one line what the invariant checks.
	Doc string
	// Guarantee is the client-go promise the invariant guards, and where
	// client-go v0.37.2 (tools/cache) makes it.
	Guarantee string
	// Scope says what of a run the invariant judges: EndState (the zero
	// value) is judged only on a settled run, Along on every run.
	Scope Scope
	// Check returns nil when the invariant holds. Otherwise it returns an
	// error wrapping the invariant's sentinel error (several joined with
	// errors.Join). It returns one wrapping ErrNotJudged when the run gives
	// it nothing to judge.
	Check func(o *observe.Observation) error
	// against, when set, is Check given the reference runs' outcome too:
	// same-outcome's.
	against func(o *observe.Observation, ref *Reference) error
}

// withoutReference is same-outcome's Check: judged without a reference,
// it is not judged.
func withoutReference(o *observe.Observation) error { return checkSameOutcome(o, nil) }

// Errors the invariants return, one per invariant, wrapped with detail.
var (
	// ErrNotConverged says the store differs from the truth's final state.
	ErrNotConverged = errors.New("store not converged")
	// ErrLostDelete says a deleted object's deletion never reached the handler.
	ErrLostDelete = errors.New("delete lost")
	// ErrTimeTravel says a key was delivered at an older resourceVersion
	// after a newer one.
	ErrTimeTravel = errors.New("resource version went back")
	// ErrSyncedEarly says HasSynced was true before the initial state was
	// delivered.
	ErrSyncedEarly = errors.New("synced before the initial state was delivered")
	// ErrNotLive says the target did not converge within its live bound
	// (Observation.LiveBound) of the last fault.
	ErrNotLive = errors.New("not live")
	// ErrBookmarkObject says a bookmark object reached the handler or the store.
	ErrBookmarkObject = errors.New("bookmark object delivered")
	// ErrHotLoop says the target made more requests than the run allows.
	ErrHotLoop = errors.New("hot loop")
	// ErrUncleanStop says the target panicked or left goroutines running.
	ErrUncleanStop = errors.New("unclean stop")
	// ErrWriteStorm says the target wrote one object more often than a
	// controller's retries do while nothing else changed it.
	ErrWriteStorm = errors.New("write storm")
	// ErrConflictLoop says the target's writes of one object were answered
	// 409 Conflict again and again while the stored object stayed the
	// same. It kept sending a resourceVersion it did not read.
	ErrConflictLoop = errors.New("conflict loop")
	// ErrCreateLoop says the target's creates of one object were answered
	// 409 AlreadyExists again and again while the stored object stayed
	// the same. Its lookups missed the object it kept creating.
	ErrCreateLoop = errors.New("create loop")
	// ErrUnknownInvariant says Judge was asked for an invariant that does
	// not exist.
	ErrUnknownInvariant = errors.New("unknown invariant")
	// ErrNoObservation says there was nothing to judge: a nil Observation,
	// or one without the TruthLog an invariant needs.
	ErrNoObservation = errors.New("no observation")
)

// Invariants lists every invariant, in report order.
var Invariants = []Invariant{
	{Name: "converged", Scope: EndState, Check: checkConverged,
		Doc: "at the end the store holds exactly the truth's final state: same keys, resourceVersions and content",
		Guarantee: `shared_informer.go, SharedInformer doc: "if a collection of objects is henceforth unchanging, ` +
			`a SharedInformer is created that links to that collection, and that SharedInformer is Run() then that ` +
			`SharedInformer's cache eventually holds an exact copy of that collection"`},
	{Name: "no-lost-delete", Scope: EndState, Check: checkNoLostDelete,
		Doc: "every key the handler saw that is gone from the truth's final state got a delete or tombstone after its last add or update",
		Guarantee: `shared_informer.go, SharedInformer doc: "if the local cache ever holds a non-absent state for some ` +
			`object ID and the object is eventually removed from the authoritative state then eventually the object is ` +
			`removed from the local cache", and "for every update to the SharedInformer's local cache ... the client is ` +
			`notified of the update"; controller.go, ResourceEventHandler doc: "OnDelete will get the final state of the ` +
			`item if it is known, otherwise it will get an object of type DeletedFinalStateUnknown"`},
	{Name: "no-time-travel", Scope: Along, Check: checkNoTimeTravel,
		Doc: "per key, the resourceVersions delivered never go back in the truth's order",
		Guarantee: `shared_informer.go, SharedInformer doc: "the sequence of states that appears in the informer's cache ` +
			`is a subsequence of the states authoritatively associated with X ... ordering among the appearing states is ` +
			`correct", and "For a given SharedInformer, client, and object ID, the notifications are delivered in order"`},
	{Name: "synced-after-initial", Scope: Along, Check: checkSyncedAfterInitial,
		Doc: "HasSynced turns true only once every key of the state the target synced to was delivered",
		Guarantee: `shared_informer.go, SharedInformer.HasSynced: "the shared informer's store has been informed by at ` +
			`least one full LIST of the authoritative state"; delta_fifo.go and the_real_fifo.go, HasSynced: true once ` +
			`"the first batch of items inserted by Replace() has been popped"`},
	{Name: "live", Scope: EndState, Check: checkLive,
		Doc: "the store converges, within the live bound (Options.LiveBound, 10 minutes) of virtual time after the last fault fired or the target's own last write changed the resource",
		Guarantee: `shared_informer.go, SharedInformer doc: the cache "is eventually consistent with the authoritative ` +
			`state ... unless prevented by persistent communication problems"; a legal fault is not a persistent problem`},
	{Name: "same-outcome", Scope: EndState, Check: withoutReference, against: checkSameOutcome,
		Doc: "a writing target's end state (every resource the replay served: objects, their fields outside the masks, and the ADDED and DELETED events its writes made per object) equals that of a fault-free reference run of the same input, objects whose owners are all gone (the garbage collector's) left out; masked: DefaultMasks and the fields two reference runs with other seeds differ in",
		Guarantee: `controller-runtime v0.23.3 pkg/reconcile/reconcile.go, Reconciler doc: "Reconciliation is level-based, meaning action ` +
			`isn't driven off changes in individual Events, but instead is driven by actual cluster state read from the apiserver or ` +
			`a local cache"; TypedReconciler.Reconcile: "Reconcile performs a full reconciliation for the object referred to by the ` +
			`Request" (a correct controller's end state does not depend on which legal faults hit it)`},
	{Name: "no-bookmark-object", Scope: Along, Check: checkNoBookmarkObject,
		Doc: "no bookmark object reaches the handler, and the store holds no object with an empty key",
		Guarantee: `reflector.go, watchHandler: "A Bookmark means watch has synced here, just update the resourceVersion" ` +
			`(a bookmark only moves the resourceVersion; it is never added to the store nor handed to a handler)`},
	{Name: "consistent-view", Scope: Along, Check: checkConsistentView,
		Doc: "after the target synced, what a handler can read from the store at each notification is a state the server served (judged with client-go's AtomicFIFO gate on, which promises it)",
		Guarantee: `the_real_fifo.go, RealFIFOOptions.AtomicEvents: "If it is set, a single event will be emitted atomically ` +
			`for Replace and Resync operations"; shared_informer.go: "the sequence of states that appears in the informer's ` +
			`cache is a subsequence of the states authoritatively associated with X"`},
	{Name: "consistent-list", Scope: Along, Check: checkConsistentList,
		Doc: "each complete list a target reports (Probe.Listed: a pager's pages put together) holds exactly the truth's state at the list's resourceVersion: same keys and resourceVersions",
		Guarantee: `apimachinery meta/v1 types.go, ListOptions.Limit: "The server guarantees that the objects returned when using ` +
			`continue will be identical to issuing a single list call without a limit ... This is sometimes referred to as a ` +
			`consistent snapshot"; client-go tools/pager/pager.go, ListPager.List: on an expired continue token it falls back ` +
			`"to full list at the requested ResourceVersion"`},
	{Name: "no-request-storm", Scope: Along, Check: checkNoRequestStorm,
		Doc: "while the target makes no progress (neither delivers nor asks for a newer resourceVersion, does not sync), it sends at most 30 LIST, WATCH and WatchList requests for its resource within 10 s of virtual time (its writes are judged by no-write-storm, no-conflict-loop and no-create-loop)",
		Guarantee: `reflector.go: "We used to make the call every 1sec (1 QPS), the goal here is to achieve ~98% traffic ` +
			`reduction when API server is not healthy. With these parameters, backoff will stop at [30,60) sec interval ` +
			`which is 0.22 QPS."; "The WatchErrorHandler is called whenever ListAndWatch drops the connection with an ` +
			`error. After calling this handler, the informer will backoff and retry."`},
	{Name: "no-write-storm", Scope: Along, Check: checkNoWriteStorm,
		Doc: "while no other actor changes an object, the target writes it successfully (a subresource's write is its object's) at most 30 times within 10 s of virtual time: controller-runtime's default rate limiter tries a failing key at most 11 times within 10 s (5 ms doubling), and a write that stored what the reconciler wants leaves nothing to write, so more is a reconciler fighting itself (two writes undoing each other, a status that changes on every reconcile)",
		Guarantee: `controller-runtime pkg/reconcile/reconcile.go, Reconciler doc: "Reconciliation is level-based, meaning action isn't ` +
			`driven off changes in individual Events, but instead is driven by actual cluster state read from the apiserver or a ` +
			`local cache"; TypedReconciler.Reconcile: "If the returned error is non-nil, the Result is ignored and the request will ` +
			`be requeued using exponential backoff"; client-go util/workqueue/default_rate_limiters.go, ` +
			`DefaultTypedControllerRateLimiter: "It has both overall and per-item rate limiting.  The overall is a token bucket ` +
			`and the per-item is exponential"`},
	{Name: "no-conflict-loop", Scope: Along, Check: checkNoConflictLoop,
		Doc: "at most 20 writes of one object in a row are answered 409 Conflict while the stored object stays the same, at a version an answer had shown the target (a conflict with one no read could have shown it, a fault keeping its reads behind, is not counted): a client that reads the object again succeeds, and controller-runtime's backoff (5 ms doubling) tries a failing key at most 19 times in a 35-minute run (the longest: the watchdog plus twice the live bound), so more is a client that keeps sending a stale resourceVersion without reading",
		Guarantee: `k8s.io/apiserver pkg/registry/generic/registry/store.go, OptimisticLockErrorMsg: "the object has been modified; ` +
			`please apply your changes to the latest version and try again"; client-go util/retry/util.go, RetryOnConflict: ` +
			`"you need to refetch it on every try, since if you got a conflict on the last update attempt then you need to get ` +
			`the current version before making your own changes."`},
	{Name: "no-create-loop", Scope: Along, Check: checkNoCreateLoop,
		Doc: "at most 20 creates of one object in a row are answered 409 AlreadyExists while the stored object stays the same, at a version an answer had shown the target (its watch's events, or, for a client that watches none, its own create's answer: a cache a fault holds back does not hold it yet): a client that looks the object up finds it and does not create it again, and controller-runtime's backoff (5 ms doubling) tries a failing key at most 19 times in a 35-minute run, so more is a client whose lookups miss what it made (another namespace or scope, a cache that does not hold it)",
		Guarantee: `k8s.io/apimachinery pkg/api/errors/errors.go: "NewAlreadyExists returns an error indicating the item requested ` +
			`exists by that identifier."; controller-runtime v0.23.3 pkg/controller/controllerutil/controllerutil.go, CreateOrUpdate: ` +
			`"CreateOrUpdate attempts to fetch the given object from the Kubernetes cluster. If the object didn't exist, MutateFn will ` +
			`be called, and it will be created."`},
	{Name: "progress", Scope: Along, Check: checkProgress,
		Doc: "when the persistent faults that fired leave the LIST path open (none fails every LIST), the target syncs within 10 minutes of virtual time of the first, or of its last fresh instance's start after a crash or restart (a WatchList a fault slows ends only at its 5-minute timeout, then 5 minutes to sync)",
		Guarantee: `reflector.go, ListAndWatchWithContext: "Data couldn't be fetched in watchlist mode. Falling back to regular list. ` +
			`This is expected if watchlist is not supported or disabled in kube-apiserver."; shared_informer.go: the cache ` +
			`"is eventually consistent with the authoritative state ... unless prevented by persistent communication problems"`},
	oneLeaderInvariant, leaderStepsDownInvariant, leaderElectedInvariant,
	{Name: "no-hot-loop", Scope: Along, Check: checkNoHotLoop,
		Doc: "the target's request rate stays at most Options.MaxBurst (200) requests within a second and Options.MaxRate (10) a second sustained over any minute of virtual time: a client that retries at once, or every few milliseconds, is a hot loop (virtual time stands still while it spins; the bound is what ends the run); a client that retries every second is not, however long a fault lasts; the sustained rate is each instance's own (a fresh instance after a crash starts it afresh); nor is a sustained rate the replay's garbage collector accounts for (at least one delete of the target's objects for every ten requests: a controller making a child again for an owner its cache still holds, as against a real cluster), which ends the run unjudged",
		Guarantee: `reflector.go: "We used to make the call every 1sec (1 QPS), the goal here is to achieve ~98% traffic ` +
			`reduction when API server is not healthy. With these parameters, backoff will stop at [30,60) sec interval ` +
			`which is 0.22 QPS."`},
	{Name: "no-spin", Scope: Along, Check: checkNoSpin,
		Doc: "no goroutine of the run keeps running without blocking (and without requests) while virtual time stands still: a run whose clock stands still for Spec.SpinBound of real time (60 s; 2 s once the target is stopped; 20 ms once stopped in a known finding's busy loop or deadlock, Spec.KnownSpins), while the process used as much CPU time, is given up, and judged by this invariant alone (goroutines waiting on a lock while another waits on virtual time, a request's latency, client-go's client-side throttle or a sleep, are a stall of synctest's, whose clock a lock wait keeps still: judged nothing)",
		Guarantee: `shared_informer.go, SharedInformer.Run: "starts and runs the shared informer, returning after it stops"; ` +
			`controller-runtime manager.go, Manager.Start: "Start starts all registered Controllers and blocks until the context is cancelled"`},
	{Name: "clean-stop", Scope: Along, Check: checkCleanStop,
		Doc: "the target never panicked nor recorded an error (Probe.Error), and after stop no goroutine of the run is left",
		Guarantee: `shared_informer.go, SharedInformer.Run: "starts and runs the shared informer, returning after it ` +
			`stops"; controller.go, Controller.RunWithContext: "blocks; call via go" (everything a run starts ends with it)`},
}

// LookupInvariant returns the invariant named name.
func LookupInvariant(name string) (Invariant, bool) {
	for _, inv := range Invariants {
		if inv.Name == name {
			return inv, true
		}
	}
	return Invariant{}, false
}

// needTruth returns an error when o or its TruthLog is missing.
func needTruth(o *observe.Observation, sentinel error) error {
	if o == nil || o.TruthLog == nil {
		return fmt.Errorf("%w: %w: no truth to judge against", sentinel, ErrNoObservation)
	}
	return nil
}

func checkConverged(o *observe.Observation) error {
	if err := needTruth(o, ErrNotConverged); err != nil {
		return err
	}
	var errs []error
	for _, d := range content.StoreDiff(o.Store, o.TruthLog.StateAt(o.TruthLog.End())) {
		errs = append(errs, fmt.Errorf("%w: %s", ErrNotConverged, d))
	}
	for _, b := range o.BadStore {
		errs = append(errs, fmt.Errorf("%w: store %s", ErrNotConverged, b))
	}
	return errors.Join(errs...)
}

func checkNoLostDelete(o *observe.Observation) error {
	if err := needTruth(o, ErrLostDelete); err != nil {
		return err
	}
	final := map[string]bool{}
	for _, obj := range o.TruthLog.StateAt(o.TruthLog.End()) {
		final[obj.Key()] = true
	}
	gone := map[string]string{} // key -> RV of its deletion in the truth
	for _, e := range o.TruthLog.Events {
		if k := e.Object.Key(); e.Type == history.Deleted && !final[k] {
			gone[k] = e.RV()
		}
	}
	// per key: index of the last add/update delivery, and whether a delete
	// came after it
	last := map[string]int{}
	deleted := map[string]bool{}
	for i, d := range o.Deliveries {
		switch d.Op {
		case observe.OpAdd, observe.OpUpdate:
			last[d.Key], deleted[d.Key] = i, false
		case observe.OpDelete, observe.OpTombstone:
			deleted[d.Key] = true
		}
	}
	var errs []error
	for _, k := range sortedKeys(gone) {
		i, seen := last[k]
		if !seen || deleted[k] {
			continue
		}
		d := o.Deliveries[i]
		errs = append(errs, fmt.Errorf("%w: key %s: deleted at rv %s, last delivered as %s at rv %s with no delete after",
			ErrLostDelete, k, gone[k], d.Op, d.RV))
	}
	return errors.Join(errs...)
}

func checkNoTimeTravel(o *observe.Observation) error {
	if err := needTruth(o, ErrTimeTravel); err != nil {
		return err
	}
	order := o.TruthLog.Order()
	newest := map[string]string{}
	var errs []error
	for i, d := range o.Deliveries {
		if d.Bookmark || d.RV == "" {
			continue
		}
		prev, ok := newest[d.Key]
		if !ok {
			newest[d.Key] = d.RV
			continue
		}
		c, placed := order.Compare(d.RV, prev)
		switch {
		case !placed: // an RV the truth cannot place: nothing to judge
		case c < 0:
			errs = append(errs, fmt.Errorf("%w: key %s: delivery %d (%s): rv %s after %s", ErrTimeTravel, d.Key, i, d.Op, d.RV, prev))
		default:
			newest[d.Key] = d.RV
		}
	}
	return errors.Join(errs...)
}

// checkSyncedAfterInitial compares InitialDelivered with the number of keys
// of the state the target synced to. That is the state at SyncedRV when
// the truth can place it. Otherwise it is the smallest state the truth
// ever had: a lower bound, which never fires falsely but may miss an early
// sync.
func checkSyncedAfterInitial(o *observe.Observation) error {
	if err := needTruth(o, ErrSyncedEarly); err != nil {
		return err
	}
	if o.SyncedAt < 0 {
		return fmt.Errorf("%w: the target never synced (live and progress judge that)", ErrNotJudged)
	}
	want, at := minStateSize(o.TruthLog), "the smallest state of the truth"
	if o.SyncedRV != "" {
		if pos, err := o.TruthLog.Position(o.SyncedRV); err == nil {
			want, at = len(o.TruthLog.StateAt(pos)), "the state at rv "+o.SyncedRV
		}
	}
	if o.InitialDelivered < want {
		return fmt.Errorf("%w: synced at %v with %d keys delivered, want at least %d (%s)",
			ErrSyncedEarly, o.SyncedAt, o.InitialDelivered, want, at)
	}
	return nil
}

// minStateSize returns the fewest keys any state of l holds.
func minStateSize(l *history.Log) int {
	present := map[string]bool{}
	for _, obj := range l.Initial {
		present[obj.Key()] = true
	}
	least := len(present)
	for _, e := range l.Events {
		if e.Type == history.Deleted {
			delete(present, e.Object.Key())
		} else {
			present[e.Object.Key()] = true
		}
		least = min(least, len(present))
	}
	return least
}

// InReportOrder returns the names in results, in report order (unknown
// names last, sorted).
func InReportOrder[V any](results map[string]V) []string {
	var out []string
	seen := map[string]bool{}
	for _, inv := range Invariants {
		if _, ok := results[inv.Name]; ok {
			out = append(out, inv.Name)
			seen[inv.Name] = true
		}
	}
	var rest []string
	for name := range results {
		if !seen[name] {
			rest = append(rest, name)
		}
	}
	sort.Strings(rest)
	return append(out, rest...)
}
