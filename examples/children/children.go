// Package children is an example controller that writes: a client-go
// workqueue controller. It gives every configmap (a parent) a child
// configmap "<name>-child" holding its name. It deletes the child of a
// parent that is gone. It records the child on the parent as an
// annotation. That is the read → decide → write loop of every controller.
// lwreplay runs it on a replay that answers its writes (docs/replayer.md,
// Writes).
//
// WithStaleRetry plants a realistic bug. The parent is updated twice from
// one copy: its child's name, then that it was reconciled. The second
// update gets 409 Conflict, since the copy's resourceVersion is the one
// the first update replaced. It is retried with the same stale object,
// forever, instead of reading the parent again. That is the loop lwreplay
// reports.
package children

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
)

// ChildLabel marks a child configmap; ChildAnnotation names a parent's
// child; ReconciledAnnotation says the controller reconciled the parent.
const (
	ChildLabel           = "children.lwreplay.example/child"
	ChildAnnotation      = "children.lwreplay.example/child"
	ReconciledAnnotation = "children.lwreplay.example/reconciled"
	childSuffix          = "-child"
)

// ErrRegister is returned by Run when the controller's handler cannot be
// added to its informer.
var ErrRegister = errors.New("children: register handler")

// Controller keeps a child configmap for every parent configmap.
type Controller struct {
	client   kubernetes.Interface
	factory  informers.SharedInformerFactory
	informer cache.SharedIndexInformer
	lister   listersv1.ConfigMapLister
	queue    workqueue.TypedRateLimitingInterface[string]
	stale    bool
	ns       string // the namespace seen; "" for all

	mu   sync.Mutex
	errs []error
}

// Option configures a Controller.
type Option func(*Controller)

// WithStaleRetry plants the bug: the parent updated twice from one copy,
// the second update's Conflict retried with the same object.
func WithStaleRetry() Option { return func(c *Controller) { c.stale = true } }

// WithNamespace makes the controller see the configmaps of namespace ns
// only, and so keep children there only (default: every namespace).
func WithNamespace(ns string) Option { return func(c *Controller) { c.ns = ns } }

// New returns a controller of the configmaps client sees; Run starts it.
func New(client kubernetes.Interface, opts ...Option) *Controller {
	c := &Controller{client: client,
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
	for _, o := range opts {
		o(c)
	}
	c.factory = informers.NewSharedInformerFactoryWithOptions(client, 0, informers.WithNamespace(c.ns))
	cms := c.factory.Core().V1().ConfigMaps()
	c.informer, c.lister = cms.Informer(), cms.Lister()
	return c
}

// Informer is the controller's configmap informer.
func (c *Controller) Informer() cache.SharedIndexInformer { return c.informer }

// HasSynced reports whether the controller's informer has synced.
func (c *Controller) HasSynced() bool { return c.informer.HasSynced() }

// Errors returns the reconcile errors the controller met, in order.
func (c *Controller) Errors() []error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]error(nil), c.errs...)
}

// Run reconciles until ctx is done, then waits for its goroutines.
func (c *Controller) Run(ctx context.Context) error {
	enqueue := func(obj any) {
		if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
			c.queue.Add(parentKey(key))
		}
	}
	if _, err := c.informer.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: enqueue, UpdateFunc: func(_, obj any) { enqueue(obj) }, DeleteFunc: enqueue,
	}); err != nil {
		return fmt.Errorf("%w: %w", ErrRegister, err)
	}
	c.factory.Start(ctx.Done())
	var wg sync.WaitGroup
	wg.Go(func() {
		<-ctx.Done()
		c.queue.ShutDown()
	})
	if cache.WaitForCacheSync(ctx.Done(), c.informer.HasSynced) {
		for c.next(ctx) {
		}
	}
	wg.Wait()
	c.factory.Shutdown()
	return nil
}

// parentKey is the key of the parent a configmap key belongs to.
func parentKey(key string) string { return strings.TrimSuffix(key, childSuffix) }

// next reconciles one key; false once the queue shut down.
func (c *Controller) next(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	if err := c.reconcile(ctx, key); err != nil {
		c.mu.Lock()
		c.errs = append(c.errs, err)
		c.mu.Unlock()
		if ctx.Err() == nil {
			c.queue.AddRateLimited(key)
		}
		return true
	}
	c.queue.Forget(key)
	return true
}

// reconcile makes key's child follow its parent.
func (c *Controller) reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return err
	}
	child := name + childSuffix
	parent, err := c.lister.ConfigMaps(ns).Get(name)
	switch {
	case apierrors.IsNotFound(err):
		err := c.client.CoreV1().ConfigMaps(ns).Delete(ctx, child, metav1.DeleteOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	case err != nil:
		return err
	case parent.Labels[ChildLabel] != "":
		return nil // a child whose name ends like a parent's
	}
	if _, err := c.lister.ConfigMaps(ns).Get(child); apierrors.IsNotFound(err) {
		_, err := c.client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: child, Namespace: ns, Labels: map[string]string{ChildLabel: "true"}},
			Data:       map[string]string{"parent": name},
		}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	}
	if parent.Annotations[ChildAnnotation] == child {
		return nil
	}
	return c.annotate(ctx, parent, child)
}

// annotate records child on parent, and that the parent was reconciled.
func (c *Controller) annotate(ctx context.Context, parent *corev1.ConfigMap, child string) error {
	cms := c.client.CoreV1().ConfigMaps(parent.Namespace)
	if c.stale {
		// the planted bug: two updates from one copy, the stale one
		// retried as it is
		p := parent.DeepCopy()
		setAnnotation(p, ChildAnnotation, child)
		if _, err := cms.Update(ctx, p, metav1.UpdateOptions{}); err != nil {
			return err
		}
		setAnnotation(p, ReconciledAnnotation, "true")
		for {
			_, err := cms.Update(ctx, p, metav1.UpdateOptions{})
			if !apierrors.IsConflict(err) || ctx.Err() != nil {
				return err
			}
		}
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := cms.Get(ctx, parent.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		setAnnotation(cur, ChildAnnotation, child)
		setAnnotation(cur, ReconciledAnnotation, "true")
		_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
}

// setAnnotation sets cm's annotation key to value.
func setAnnotation(cm *corev1.ConfigMap, key, value string) {
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[key] = value
}
