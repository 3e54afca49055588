package targets

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
)

// runFactoryShared runs two controllers as a controller manager does. Each
// asks one SharedInformerFactory, built on env.Clientset, for the informer
// of the run's resource, and gets the same shared informer.
//   - The first registers the probe's recording handler.
//   - The second registers a handler that queues keys on a workqueue. Its
//     worker looks each key up in the shared lister.
//
// The factory starts the informer once. The second controller waits for
// its cache (factory.WaitForCacheSync) before its worker runs. The factory
// shuts down when the run ends.
//
// Both controllers watch the run's resource. Informers of other resources
// would share the replay's decision points with it; those are numbered in
// the order requests reach the server, across resources. Then which
// resource a fault lands on would depend on goroutine scheduling.
func runFactoryShared(ctx context.Context, env *harness.Env) error {
	cs, err := env.Clientset()
	if err != nil {
		return err
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	recorder, err := sharedInformerOf(factory, env)
	if err != nil {
		return err
	}
	worker, err := sharedInformerOf(factory, env)
	if err != nil {
		return err
	}
	if _, err := env.Probe.AddEventHandler(recorder.Informer(), nil); err != nil {
		return err
	}
	queue := workqueue.NewTyped[string]()
	if _, err := worker.Informer().AddEventHandler(enqueueKeys(queue, env.Probe)); err != nil {
		return fmt.Errorf("%w: add event handler: %w", harness.ErrTarget, err)
	}
	factory.Start(ctx.Done())
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, synced := range factory.WaitForCacheSync(ctx.Done()) {
			if !synced {
				return // stopped before the informers synced
			}
		}
		lister := worker.Lister()
		for lookUpKeys(queue, lister, env.Probe) {
			// one key at a time, until the queue shuts down
		}
	})
	<-ctx.Done()
	queue.ShutDown()
	wg.Wait()
	factory.Shutdown()
	return nil
}

// sharedInformerOf asks factory for the informer of env's resource. For
// the resources client-go knows, it is a generated informer of client-go's
// (factory.ForResource). Else it is an informer of unstructured objects
// the factory keeps by that type (factory.InformerFor).
func sharedInformerOf(factory informers.SharedInformerFactory, env *harness.Env) (informers.GenericInformer, error) {
	res := env.Resource
	gvr := schema.GroupVersionResource{Group: res.Group, Version: res.Version, Resource: res.Resource}
	if inf, err := factory.ForResource(gvr); err == nil {
		return inf, nil
	}
	lw, err := env.ListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return nil, err
	}
	inf := factory.InformerFor(&unstructured.Unstructured{}, func(_ kubernetes.Interface, resync time.Duration) cache.SharedIndexInformer {
		return cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, resync, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	})
	return unstructuredInformer{inf: inf, gr: gvr.GroupResource()}, nil
}

// unstructuredInformer is a GenericInformer of unstructured objects.
type unstructuredInformer struct {
	inf cache.SharedIndexInformer
	gr  schema.GroupResource
}

// Informer returns the shared informer.
func (u unstructuredInformer) Informer() cache.SharedIndexInformer { return u.inf }

// Lister returns a lister of the shared informer's indexer.
func (u unstructuredInformer) Lister() cache.GenericLister {
	return cache.NewGenericLister(u.inf.GetIndexer(), u.gr)
}

// enqueueKeys is a controller's handler. It queues the key of every object
// it is told of, a tombstone's too. A key that cannot be made is recorded
// with probe.Error.
func enqueueKeys(queue workqueue.TypedInterface[string], probe *harness.Probe) cache.ResourceEventHandler {
	add := func(obj any) {
		key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj)
		if err != nil {
			probe.Error(fmt.Errorf("controller: key of %T: %w", obj, err))
			return
		}
		queue.Add(key)
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    add,
		UpdateFunc: func(_, obj any) { add(obj) },
		DeleteFunc: add,
	}
}

// lookUpKeys is a controller's worker. It takes one key off queue and gets
// it from lister (absent is fine: the object was deleted). It records any
// other error with probe.Error. It returns false once queue is shut down.
func lookUpKeys(queue workqueue.TypedInterface[string], lister cache.GenericLister, probe *harness.Probe) bool {
	key, shutdown := queue.Get()
	if shutdown {
		return false
	}
	defer queue.Done(key)
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		probe.Error(fmt.Errorf("controller: key %q: %w", key, err))
		return true
	}
	if ns != "" {
		_, err = lister.ByNamespace(ns).Get(name)
	} else {
		_, err = lister.Get(name)
	}
	if err != nil && !apierrors.IsNotFound(err) {
		probe.Error(fmt.Errorf("controller: get %s: %w", key, err))
	}
	return true
}
