package targets

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"

	"github.com/lwreplay/lwreplay/fuzz/harness"
)

// runUntilWithSync is a waiter on client-go's UntilWithSync (tools/watch,
// what kubectl wait runs): its precondition and condition are never
// satisfied, so UntilWithSync keeps its informer running until ctx is
// done, and its condition applies every event it is given, in order, to a
// store of its own, which is the probe's. UntilWithSync's doc promises
// that it "can deal with all errors like API timeout, lost connections
// and 'Resource version too old'" and that "you always get an event, if
// there has been a change, after recovery"; its precondition is checked
// "when the store is synced".
func runUntilWithSync(ctx context.Context, env *harness.Env) error {
	return untilWithSync(ctx, env, nil)
}

// untilWithSync is runUntilWithSync; keep, when set, is given each event
// before the condition applies it, and false drops it (a test's planted
// bug).
func untilWithSync(ctx context.Context, env *harness.Env, keep func(watch.Event) bool) error {
	lw, err := env.SharedListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return err
	}
	w := newUntilWaiter(env.Probe)
	_, err = watchtools.UntilWithSync(ctx, lw, &unstructured.Unstructured{}, w.precondition, func(ev watch.Event) (bool, error) {
		if keep == nil || keep(ev) {
			w.event(ev)
		}
		return false, nil
	})
	if ctx.Err() != nil {
		// UntilWithSync ends with an ErrWaitTimeout (or a sync error
		// wrapping ctx's) once ctx is done: a clean stop.
		return nil
	}
	if err != nil {
		return fmt.Errorf("%w: UntilWithSync ended before its context: %w", harness.ErrTarget, err)
	}
	return fmt.Errorf("%w: UntilWithSync returned with a condition never satisfied", harness.ErrTarget)
}

// untilWaiter is the state of an UntilWithSync's precondition and
// condition: a listConsumer whose store is kept from the condition's
// events (and records no views: UntilWithSync hands a relist on as one
// event a key, its informer watcher's Replace, so the store passes
// through states no answer served; only an informer's store read by its
// handlers is promised atomic, with AtomicFIFO), and the keys of the
// store the precondition saw that the condition has not been given yet.
type untilWaiter struct {
	*listConsumer
	// pending are the keys of the informer's store when the precondition
	// ran that no event has been given for yet; nil before it ran. Only
	// UntilWithSync's goroutine, which calls both functions, uses it.
	pending map[string]bool
}

// newUntilWaiter returns a waiter with an empty store, registered with
// probe as its store and HasSynced: synced once the precondition ran and
// the condition saw each key it noted.
func newUntilWaiter(probe *harness.Probe) *untilWaiter {
	c := newListConsumer(probe)
	c.noViews = true
	return &untilWaiter{listConsumer: c}
}

// precondition is UntilWithSync's precondition, called once its informer
// has synced: it notes the keys of the synced store, whose events the
// informer has handed on but the condition is yet to be given, and is
// never satisfied. The waiter syncs once the condition saw each of them
// (at once for an empty store).
func (w *untilWaiter) precondition(store cache.Store) (bool, error) {
	w.pending = map[string]bool{}
	for _, key := range store.ListKeys() {
		w.pending[key] = true
	}
	if len(w.pending) == 0 {
		w.synced.Store(true)
	}
	return false, nil
}

// event applies one of the condition's events to the store and tells the
// probe (UntilWithSync unwraps a tombstone into its last known object, so
// a DELETED is a plain delete), then ticks its key off the precondition's.
func (w *untilWaiter) event(ev watch.Event) {
	if _, ok := w.apply(ev); !ok || w.synced.Load() || w.pending == nil {
		return
	}
	key, err := cache.MetaNamespaceKeyFunc(ev.Object)
	if err != nil {
		w.probe.Error(fmt.Errorf("key of %s event: %w", ev.Type, err))
		return
	}
	delete(w.pending, key)
	if len(w.pending) == 0 {
		w.synced.Store(true)
	}
}
