package targets

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

// Builtin are the built-in targets, in the order docs and the CLI list them.
var Builtin = []harness.Target{
	{
		Name: "informer",
		Doc:  "a SharedIndexInformer whose event handler records what it is told",
		Run:  runInformer,
	},
	{
		Name: "informer-resync",
		Doc:  "a SharedIndexInformer with a resync period of 30 s of virtual time, whose recording handler is told of every stored object again at each resync",
		Run:  runInformerResync,
	},
	{
		Name: "informer-late-handler",
		Doc:  "a SharedIndexInformer whose recording handler is added once the informer has synced, as by a controller that registers lazily: client-go replays its store to the handler, and the probe's HasSynced is the registration's",
		Run:  runLateHandler,
	},
	{
		Name: "informer-watch-error-handler",
		Doc:  "a SharedIndexInformer with a watch error handler (SetWatchErrorHandlerWithContext) that counts the errors it is given (exposed, a *targets.WatchErrors), logs nothing and returns, keeping client-go's behaviour: \"The WatchErrorHandler is called whenever ListAndWatch drops the connection with an error. After calling this handler, the informer will backoff and retry.\"; its recording handler is the probe's",
		Run:  runInformerWatchErrorHandler,
	},
	{
		Name:       "informer-transform",
		Doc:        "a SharedIndexInformer with a resync period of 30 s of virtual time and a TransformFunc (SetTransform) that strips metadata.managedFields in place, as controller-runtime's TransformStripManagedFields does; client-go: \"The TransformFunc is called for each object which is about to be stored\", before \"corresponding Add/Modify/Delete handlers will be invoked for them\", and \"It's recommended for the TransformFunc to be idempotent\" (the WatchList path calls it twice on each streamed object, a resync not again); its store is compared with the truth's objects without managedFields (fuzz.Target.StoreOmits); its recording handler is the probe's",
		Run:        runInformerTransform,
		StoreOmits: []string{managedFields},
	},
	{
		Name: "factory-shared",
		Doc:  "two controllers sharing one informer of a SharedInformerFactory on env.Clientset: one registers the recording handler, the other queues keys on a workqueue whose worker reads the shared lister",
		Run:  runFactoryShared,
	},
	{
		Name: "reflector-deltafifo",
		Doc:  "a Reflector feeding a DeltaFIFO whose deltas a Pop loop applies to an indexer, as a hand-built controller does",
		Run: func(ctx context.Context, env *harness.Env) error {
			return runPopLoop(ctx, env, func(known cache.KeyListerGetter) fifo {
				return cache.NewDeltaFIFOWithOptions(cache.DeltaFIFOOptions{KnownObjects: known, EmitDeltaTypeReplaced: true})
			})
		},
	},
	{
		Name: "reflector-realfifo",
		Doc:  "a Reflector feeding a RealFIFO whose deltas a Pop loop applies to an indexer",
		Run: func(ctx context.Context, env *harness.Env) error {
			return runPopLoop(ctx, env, func(known cache.KeyListerGetter) fifo {
				return cache.NewRealFIFOWithOptions(cache.RealFIFOOptions{KnownObjects: known})
			})
		},
	},
	{
		Name:        "retry-watcher",
		Doc:         "a consumer of client-go's RetryWatcher (tools/watch): it LISTs for its initial state, applies the events of a RetryWatcher started at the list's resourceVersion to its own store, and lists again and starts a new RetryWatcher when one stops on a 410 Gone",
		Run:         runRetryWatcher,
		NoWatchList: true,
	},
	{
		Name:        "list-pager",
		Doc:         "a poller on client-go's ListPager (tools/pager; PageSize 2, so that every LIST is paged, and FullListIfExpired): its store is the last complete list, made again every 10 s of virtual time while a watch tells it of changes",
		Run:         runListPager,
		NoWatchList: true,
	},
	{
		Name: "until-with-sync",
		Doc:  "a waiter on client-go's UntilWithSync (tools/watch, what kubectl wait runs) whose precondition and condition are never satisfied: its condition applies each event of UntilWithSync's informer, in order, to its own store, and it syncs once the condition was given every key of the store its precondition saw synced",
		Run:  runUntilWithSync,
	},
	{
		Name: "indexer-informer-watcher",
		Doc:  "a consumer of client-go's NewIndexerInformerWatcherWithLogger (tools/watch), which wraps an IndexerInformer \"into watch.Interface so you can use it anywhere where you'd have used a regular Watcher returned from Watch method\": it applies each event of the returned watch, in order, to its own store, and syncs once the returned controller has synced and it was given every key of the indexer at that moment",
		Run:  runIndexerInformerWatcher,
	},
	{
		Name:          "metadata-informer",
		Doc:           "the SharedIndexInformer of a metadatainformer factory on metadata.NewForConfig(env.Config) (wire level only): PartialObjectMetadata objects, whose store is compared with the truth's metadata; its recording handler is the probe's",
		Run:           runMetadataInformer,
		WatchListGate: true,
	},
	{
		Name:          "dynamic-informer",
		Doc:           "the SharedIndexInformer of a dynamicinformer factory on dynamic.NewForConfig(env.Config) (wire level only): unstructured objects; its recording handler is the probe's",
		Run:           runDynamicInformer,
		WatchListGate: true,
	},
	{
		Name: "leader-election",
		Doc:  "two candidates of client-go's tools/leaderelection, each a LeaderElector with a resourcelock.LeaseLock on the Lease kube-system/lwreplay-target (client-go's usual timings: LeaseDuration 15 s, RenewDeadline 10 s, RetryPeriod 2 s, in virtual time; ReleaseOnCancel false), beside a SharedIndexInformer whose recording handler is the probe's, as controller-runtime runs caches on every replica; its leadership timeline is exposed (an *oracle.Leadership) for one-leader, leader-steps-down and leader-elected: \"A client needs to wait a full LeaseDuration without observing a change to the record before it can attempt to take over\"",
		Run:  runLeaderElection,
	},
}

// Lookup returns the built-in target called name.
func Lookup(name string) (harness.Target, bool) {
	for _, t := range Builtin {
		if t.Name == name {
			return t, true
		}
	}
	return harness.Target{}, false
}

// runInformer runs a SharedIndexInformer over res whose only handler is
// the probe's recording one.
func runInformer(ctx context.Context, env *harness.Env) error {
	inf, err := recordingInformer(env, 0)
	if err != nil {
		return err
	}
	inf.RunWithContext(ctx)
	return nil
}

// recordingInformer returns a SharedIndexInformer over env's resource,
// with the resync period resync, whose only handler is the probe's
// recording one; it is not running yet.
func recordingInformer(env *harness.Env, resync time.Duration) (cache.SharedIndexInformer, error) {
	lw, err := env.SharedListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return nil, err
	}
	inf := cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, resync, cache.Indexers{})
	if _, err := env.Probe.AddEventHandler(inf, nil); err != nil {
		return nil, err
	}
	return inf, nil
}

// fifo is what a Pop loop needs of a DeltaFIFO or RealFIFO.
type fifo interface {
	cache.ReflectorStore
	Pop(process cache.PopProcessFunc) (any, error)
	HasSynced() bool
	Close()
}

// runPopLoop runs a Reflector into the queue newQueue makes and a loop that
// pops its deltas, applies them to an indexer and records them.
func runPopLoop(ctx context.Context, env *harness.Env, newQueue func(cache.KeyListerGetter) fifo) error {
	rec := env.Probe
	lw, err := env.SharedListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return err
	}
	indexer := cache.NewIndexer(cache.DeletionHandlingMetaNamespaceKeyFunc, cache.Indexers{})
	q := newQueue(indexer)
	r := cache.NewReflectorWithOptions(lw, &unstructured.Unstructured{}, q, cache.ReflectorOptions{})
	rec.SetSynced(q.HasSynced)
	rec.SetStore(indexer.List)
	var wg sync.WaitGroup
	wg.Go(func() { r.RunWithContext(ctx) })
	wg.Go(func() {
		<-ctx.Done()
		q.Close()
	})
	defer wg.Wait()
	for {
		_, err := q.Pop(func(obj any, initial bool) error {
			return applyDeltas(indexer, rec, obj, !initial)
		})
		switch {
		case errors.Is(err, cache.ErrFIFOClosed):
			return nil
		case err != nil:
			rec.Error(err) // as client-go's controller, go on with the next item
		}
	}
}

// applyDeltas applies a popped Deltas to indexer and records each as a
// handler would be told of it.
func applyDeltas(indexer cache.Indexer, rec *harness.Probe, obj any, synced bool) error {
	deltas, ok := obj.(cache.Deltas)
	if !ok {
		return fmt.Errorf("%w: popped %T, want Deltas", harness.ErrTarget, obj)
	}
	for _, d := range deltas {
		switch d.Type {
		case cache.Sync, cache.Replaced, cache.Added, cache.Updated:
			_, exists, err := indexer.Get(d.Object)
			if err != nil {
				return fmt.Errorf("%s delta: indexer get: %w", d.Type, err)
			}
			if exists {
				if err := indexer.Update(d.Object); err != nil {
					return err
				}
				rec.Update(d.Object, synced)
				continue
			}
			if err := indexer.Add(d.Object); err != nil {
				return err
			}
			rec.Add(d.Object, synced)
		case cache.Deleted:
			if err := indexer.Delete(d.Object); err != nil {
				return err
			}
			rec.Delete(d.Object, synced)
		}
	}
	return nil
}
