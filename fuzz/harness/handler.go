package harness

import (
	"fmt"
	"sync"

	"k8s.io/client-go/tools/cache"
)

// AddEventHandler registers h with inf the way a fuzz target needs it:
//   - every notification is recorded to the probe before h gets it: an add
//     of the initial list with Synced false, every later one with whether
//     the registration had synced;
//   - a panic of h is recovered and recorded with Panic (message and the
//     type of the object h was given) instead of ending the process;
//     client-go re-panics a handler's panic in its own goroutine;
//   - once the registration exists, the probe's HasSynced is the
//     registration's and its store is inf's.
//
// h may be nil: the probe records and nothing else runs.
//
// The synced flag is the registration's HasSynced, not the informer's.
// The informer's turns true once its store holds the initial state, before
// the handler has been told of all of it. synced-after-initial judges the
// registration's. A notification delivered before AddEventHandler has
// returned is recorded as not synced.
//
//	reg, err := env.Probe.AddEventHandler(informer, myHandler)
func (r *Probe) AddEventHandler(inf cache.SharedInformer, h cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	w := &probeHandler{probe: r, handler: h}
	reg, err := inf.AddEventHandler(w)
	if err != nil {
		return nil, fmt.Errorf("%w: add event handler: %w", ErrTarget, err)
	}
	w.registered(func() bool { return inf.HasSynced() && reg.HasSynced() })
	r.SetSynced(w.synced)
	r.SetStore(inf.GetStore().List)
	return reg, nil
}

// probeHandler records each notification to a probe, then hands it to the
// user's handler, recovering its panics.
type probeHandler struct {
	probe   *Probe
	handler cache.ResourceEventHandler

	mu        sync.Mutex
	hasSynced func() bool // nil until the registration exists
}

// registered sets the registration's HasSynced, once it exists.
func (w *probeHandler) registered(hasSynced func() bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.hasSynced = hasSynced
}

// synced reports whether the registration exists and has synced.
func (w *probeHandler) synced() bool {
	w.mu.Lock()
	fn := w.hasSynced
	w.mu.Unlock()
	return fn != nil && fn()
}

// OnAdd records an add and calls the handler's OnAdd.
func (w *probeHandler) OnAdd(obj any, isInInitialList bool) {
	w.probe.Add(obj, !isInInitialList)
	if !isInInitialList {
		w.probe.View()
	}
	if w.handler == nil {
		return
	}
	defer w.recoverPanic(obj)
	w.handler.OnAdd(obj, isInInitialList)
}

// OnUpdate records an update and calls the handler's OnUpdate.
func (w *probeHandler) OnUpdate(oldObj, newObj any) {
	synced := w.synced()
	w.probe.Update(newObj, synced)
	if synced {
		w.probe.View()
	}
	if w.handler == nil {
		return
	}
	defer w.recoverPanic(newObj)
	w.handler.OnUpdate(oldObj, newObj)
}

// OnDelete records a delete (a cache.DeletedFinalStateUnknown as a
// tombstone) and calls the handler's OnDelete.
func (w *probeHandler) OnDelete(obj any) {
	synced := w.synced()
	w.probe.Delete(obj, synced)
	if synced {
		w.probe.View()
	}
	if w.handler == nil {
		return
	}
	defer w.recoverPanic(obj)
	w.handler.OnDelete(obj)
}

// recoverPanic records a panic of the handler, given obj, with the probe.
// It must be deferred by the method that calls the handler.
func (w *probeHandler) recoverPanic(obj any) {
	if p := recover(); p != nil {
		w.probe.Panic(fmt.Sprintf("%v (object %T)", p, obj))
	}
}
