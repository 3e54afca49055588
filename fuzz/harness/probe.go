package harness

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/fuzz/internal/site"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

// Probe collects what a target's handler was told and gives the run a
// view of the target's store and sync state. It is safe for concurrent use.
type Probe struct {
	start time.Time

	mu         sync.Mutex
	deliveries []observe.Delivery
	synced     func() bool
	settled    func() bool
	retryDue   func() (time.Duration, bool)
	store      func() []any
	panics     []string
	panicSites []string
	firstPanic time.Duration // when the first of panics was recorded
	errs       []string
	views      []observe.StoreView
	listings   []observe.Listing
	exposed    any
	// transform is what the target's store applies to each object
	// (SetStoreTransform; nil: none).
	transform func(any) (any, error)
	// known returns the history object of a stored object the typed level
	// decoded and shared (nil: none is known).
	known func(any) (*history.Object, bool)

	viewMu sync.Mutex
	// sums memoizes the view digest part of shared decoded objects (those
	// known holds), by the address of their content. Those objects are
	// unchanged by contract, and kept alive by the cache that shares them.
	sums map[uintptr]uint64
}

// Expose hands v (say, the target's own cache) to the run's Observation,
// for user invariants to judge.
func (r *Probe) Expose(v any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.exposed = v
}

// Elapsed returns the virtual time since the run started. That is the
// clock of the Observation's times (Delivery.At, EndedAt, Crashes), for a
// target that times what it exposes.
func (r *Probe) Elapsed() time.Duration { return time.Since(r.start) }

// Panic records a panic the target recovered in one of its own handlers,
// for the clean-stop invariant. A handler panic in client-go's goroutines
// would otherwise end the process.
func (r *Probe) Panic(v any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	where := site.CallerSite() // while panicking, the frames below the panic are on the stack
	r.panics = append(r.panics, fmt.Sprint(v))
	r.panicSites = append(r.panicSites, where)
	if len(r.panics) == 1 {
		r.firstPanic = time.Since(r.start)
	}
}

// Listed records a complete list the target put together (a pager's
// pages) at resourceVersion rv, for the consistent-list invariant. Items
// that are no objects are not recorded.
func (r *Probe) Listed(rv string, items []any) {
	keys, sum, ok := observe.ViewOf(items)
	if !ok {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.listings = append(r.listings, observe.Listing{At: time.Since(r.start), RV: rv, Keys: keys, Sum: sum})
}

// Error records an error the target met and went on from, for the
// clean-stop invariant. Examples are a delta it could not apply, or a
// handler that could not do its work.
func (r *Probe) Error(err error) {
	if err == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, err.Error())
}

// Errors returns the errors recorded with Error, in order.
func (r *Probe) Errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// NewProbe returns an empty probe whose deliveries are timed from start
// (a run makes its own: this one is for testing a handler alone).
func NewProbe(start time.Time) *Probe {
	return &Probe{start: start, deliveries: make([]observe.Delivery, 0, 256)}
}

// SetSynced registers the target's HasSynced (AddEventHandler registers
// its handler registration's).
func (r *Probe) SetSynced(fn func() bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.synced = fn
}

// SetSettled registers a func that reports whether the target has nothing
// left to do but repeat itself: a leader that renews its lease, a poller
// that lists again. A run may end early only while it reports true, once
// the replay is spent and the target's store holds the truth.
//
// A target may have work of its own beside its store, which it retries on
// a period longer than the quiet second a run ends after. An example is a
// leader election whose candidates retry every 2 s. Such a target
// registers one, so that the run does not end between two of its tries,
// its end state unreached. Without one the target is settled once its
// store is.
func (r *Probe) SetSettled(fn func() bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.settled = fn
}

// SetRetryDue registers a func that says when the target's next retry of
// work that failed is due, in virtual time since the run started (false:
// none is pending). A run of a target with a Target.RetryBound that
// reaches its end while one is due goes on until just past it (at most the
// bound past the end). Without one, the run goes on until the bound has
// passed since the target's last write.
func (r *Probe) SetRetryDue(fn func() (time.Duration, bool)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.retryDue = fn
}

// nextRetry calls the registered retryDue func: when the target's next
// retry is due and whether one is pending; known is false when none is
// registered.
func (r *Probe) nextRetry() (due time.Duration, pending, known bool) {
	r.mu.Lock()
	fn := r.retryDue
	r.mu.Unlock()
	if fn == nil {
		return 0, false, false
	}
	due, pending = fn()
	return due, pending, true
}

// isSettled calls the registered settled func (true when none is).
func (r *Probe) isSettled() bool {
	r.mu.Lock()
	fn := r.settled
	r.mu.Unlock()
	return fn == nil || fn()
}

// SetStore registers the target's store lister (a cache.Store's List).
func (r *Probe) SetStore(fn func() []any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.store = fn
}

// HasSynced calls the registered HasSynced (false when none is).
func (r *Probe) HasSynced() bool {
	r.mu.Lock()
	fn := r.synced
	r.mu.Unlock()
	return fn != nil && fn()
}

// Add records an add of obj; synced says whether the target had reported
// HasSynced before it.
func (r *Probe) Add(obj any, synced bool) { r.record(observe.OpAdd, obj, synced) }

// Update records an update to obj.
func (r *Probe) Update(obj any, synced bool) { r.record(observe.OpUpdate, obj, synced) }

// Delete records a delete of obj; a cache.DeletedFinalStateUnknown is
// recorded as a tombstone.
func (r *Probe) Delete(obj any, synced bool) {
	if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		dv := deliveryOf(observe.OpTombstone, d.Obj)
		dv.Key = d.Key
		r.append(dv, synced)
		return
	}
	r.record(observe.OpDelete, obj, synced)
}

func (r *Probe) record(op observe.Op, obj any, synced bool) {
	if r.known != nil {
		// A shared decoded object: its key and versions are known.
		if o, ok := r.known(obj); ok {
			r.append(observe.Delivery{Op: op, Key: o.Key(), RV: o.ResourceVersion, UID: o.UID, Bookmark: o.Name == ""}, synced)
			return
		}
	}
	r.append(deliveryOf(op, obj), synced)
}

func (r *Probe) append(d observe.Delivery, synced bool) {
	d.At = time.Since(r.start)
	d.Synced = synced
	r.mu.Lock()
	defer r.mu.Unlock()
	r.deliveries = append(r.deliveries, d)
}

// deliveryCount returns how many deliveries there were so far.
func (r *Probe) deliveryCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.deliveries)
}

// Deliveries returns the deliveries so far, in order.
func (r *Probe) Deliveries() []observe.Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]observe.Delivery(nil), r.deliveries...)
}

// Store returns the target's store by key (nil when no store is
// registered). An object without a name (a bookmark's) is under the empty
// key. Items that are no Kubernetes object are left out and described in
// bad, in store order.
func (r *Probe) Store() (store map[string]*history.Object, bad []string) {
	return r.storeAgainst(nil, nil)
}

// storeAgainst is Store, where a stored object equal to want's object of
// its key (same resourceVersion, same content, the fields of om left out:
// Target.StoreOmits) is given as want's object itself: comparing is
// cheaper than encoding, and the comparison is the run's to make. A
// stored object that holds a field of om is described in bad too.
func (r *Probe) storeAgainst(want map[string]*history.Object, om omission) (store map[string]*history.Object, bad []string) {
	r.mu.Lock()
	fn, transform := r.store, r.transform
	r.mu.Unlock()
	if fn == nil {
		return nil, nil
	}
	out := map[string]*history.Object{}
	for i, obj := range fn() {
		if r.known != nil {
			if o, ok := r.known(obj); ok {
				out[o.Key()] = o
				continue
			}
		}
		if w, ok := sameAsWanted(obj, want, om); ok {
			out[w.Key()] = w
			continue
		}
		if m, err := meta.Accessor(obj); err == nil && m != nil && m.GetName() == "" {
			// evidence for no-bookmark-object, not an error of the run
			out[""] = &history.Object{Namespace: m.GetNamespace(), UID: string(m.GetUID()), ResourceVersion: m.GetResourceVersion()}
			continue
		}
		o, err := level.ObjectOf(obj)
		if err != nil {
			bad = append(bad, fmt.Sprintf("item %d: %v", i, err))
			continue
		}
		if w, ok := want[o.Key()]; ok && w.ResourceVersion == o.ResourceVersion && (sameStored(obj, o.Raw, w, om) || sameTransformed(obj, o.Raw, w, transform)) {
			o = w
		} else if held := om.heldIn(o.Raw); len(held) > 0 {
			// a field the store was to leave out: the truth's object may
			// hold it too, so no content comparison would tell
			bad = append(bad, fmt.Sprintf("item %d: %s holds %s, which its store leaves out (Target.StoreOmits)", i, o.Key(), strings.Join(held, ", ")))
		}
		out[o.Key()] = o
	}
	return out, bad
}

// storeRVs returns the target's store as key → resourceVersion.
func (r *Probe) storeRVs() (map[string]string, error) {
	r.mu.Lock()
	fn := r.store
	r.mu.Unlock()
	out := map[string]string{}
	if fn == nil {
		return out, nil
	}
	for _, obj := range fn() {
		m, err := meta.Accessor(obj)
		if err != nil {
			return nil, fmt.Errorf("%w: %T", level.ErrNotAnObject, obj)
		}
		out[cache.MetaObjectToName(m).String()] = m.GetResourceVersion()
	}
	return out, nil
}

// deliveryOf describes obj (which may be nil or not an object).
func deliveryOf(op observe.Op, obj any) observe.Delivery {
	d := observe.Delivery{Op: op}
	m, err := meta.Accessor(obj)
	if err != nil || m == nil {
		return d
	}
	d.Key = cache.MetaObjectToName(m).String()
	d.RV = m.GetResourceVersion()
	d.UID = string(m.GetUID())
	d.Bookmark = m.GetName() == ""
	return d
}
