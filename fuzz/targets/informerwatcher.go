package targets

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
	"k8s.io/klog/v2"

	"github.com/lwreplay/lwreplay/fuzz/harness"
)

// runIndexerInformerWatcher is a consumer of client-go's
// NewIndexerInformerWatcherWithLogger (tools/watch). That wraps an
// IndexerInformer "into watch.Interface so you can use it anywhere where
// you'd have used a regular Watcher returned from Watch method". The
// consumer waits for the returned controller's HasSynced, as UntilWithSync
// does, and notes the keys of the returned indexer at that moment. Then it
// applies every event of the returned watch, in order, to a store of its
// own, which is the probe's. It syncs once it was given an event for each
// noted key. The informer hands those on (one event a key) before its
// HasSynced turns true, but they still wait in the watcher's buffer. So the
// controller's HasSynced alone says nothing of the consumer's store.
//
// It records no store views, for until-with-sync's reason (see syncWaiter).
// The informer's handlers push one watch.Event per OnAdd, OnUpdate or
// OnDelete. So a relist's Replace reaches the store as one event a key,
// with no batch boundary a watch.Interface could carry. The store passes
// through states no answer served.
func runIndexerInformerWatcher(ctx context.Context, env *harness.Env) error {
	return indexerInformerWatcher(ctx, env, informerWatcherHooks{})
}

// informerWatcherHooks plant bugs in the indexer-informer-watcher
// consumer, for tests.
type informerWatcherHooks struct {
	// event, when set, is given each event before the consumer applies
	// it; false drops it.
	event func(watch.Event) bool
	// syncEarly takes the controller's HasSynced for the consumer's own,
	// while the initial list's events are still buffered.
	syncEarly bool
}

// indexerInformerWatcher is runIndexerInformerWatcher with bugs planted
// by hooks.
func indexerInformerWatcher(ctx context.Context, env *harness.Env, hooks informerWatcherHooks) error {
	lw, err := env.SharedListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return err
	}
	indexer, informer, w, done := watchtools.NewIndexerInformerWatcherWithLogger(klog.FromContext(ctx), lw, &unstructured.Unstructured{})
	// Stopping the watcher stops its informer; done is closed once the
	// informer has returned, so nothing of it outlives the run.
	defer func() { <-done }()
	defer w.Stop()
	c := newSyncWaiter(env.Probe)
	if !cache.WaitForCacheSync(ctx.Done(), informer.HasSynced) {
		return nil // ctx was done before the informer synced: a clean stop
	}
	if hooks.syncEarly {
		c.synced.Store(true)
	} else {
		c.noteSynced(indexer)
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-w.ResultChan():
			if !ok {
				return fmt.Errorf("%w: the informer watcher's result channel closed before its context", harness.ErrTarget)
			}
			if hooks.event == nil || hooks.event(ev) {
				c.event(ev)
			}
		}
	}
}
