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
// what kubectl wait runs). Its precondition and condition are never
// satisfied, so UntilWithSync keeps its informer running until ctx is done.
// Its condition applies every event it is given, in order, to a store of
// its own, which is the probe's. UntilWithSync's doc promises:
//   - that it "can deal with all errors like API timeout, lost connections
//     and 'Resource version too old'";
//   - that "you always get an event, if there has been a change, after
//     recovery";
//   - that its precondition is checked "when the store is synced".
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
	w := newSyncWaiter(env.Probe)
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

// syncWaiter is the state of a consumer of client-go's informer watcher
// (tools/watch NewIndexerInformerWatcherWithLogger, which UntilWithSync
// runs). It holds two things:
//   - a listConsumer whose store is kept from the watcher's events;
//   - the keys of the informer's store once it had synced that no event has
//     been given for yet.
//
// The store records no views. The informer watcher hands a relist on as one
// event a key (its informer's Replace), so the store passes through states
// no answer served. Only an informer's store read by its handlers is
// promised atomic, with AtomicFIFO. Both UntilWithSync's precondition and
// condition and the indexer-informer-watcher's loop call it from one
// goroutine.
type syncWaiter struct {
	*listConsumer
	// pending are the keys of the informer's store when it was seen
	// synced that no event has been given for yet; nil before then. Only
	// the consumer's goroutine, which calls noteSynced and event, uses it.
	pending map[string]bool
}

// newSyncWaiter returns a waiter with an empty store, registered with
// probe as its store and HasSynced. It is synced once it saw the
// informer's store synced and was given an event for each key it noted
// there.
func newSyncWaiter(probe *harness.Probe) *syncWaiter {
	c := newListConsumer(probe)
	c.noViews = true
	return &syncWaiter{listConsumer: c}
}

// precondition is UntilWithSync's precondition, called once its informer
// has synced: it notes the synced store's keys and is never satisfied.
func (w *syncWaiter) precondition(store cache.Store) (bool, error) {
	w.noteSynced(store)
	return false, nil
}

// noteSynced notes the keys of store, the informer's once it has synced.
// Those are the keys whose events the informer has handed on but the
// consumer is yet to be given. The waiter syncs once it was given each of
// them (at once for an empty store).
func (w *syncWaiter) noteSynced(store cache.Store) {
	w.pending = map[string]bool{}
	for _, key := range store.ListKeys() {
		w.pending[key] = true
	}
	if len(w.pending) == 0 {
		w.synced.Store(true)
	}
}

// event applies one of the watcher's events to the store and tells the
// probe. The informer watcher unwraps a tombstone into its last known
// object, so a DELETED is a plain delete. Then it ticks its key off the
// noted ones.
func (w *syncWaiter) event(ev watch.Event) {
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
