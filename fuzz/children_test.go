package fuzz

import (
	"context"
	"fmt"
	"hash/fnv"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	listersv1 "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/client-go/util/workqueue"
	"k8s.io/utils/ptr"
)

// childLabel marks the children childrenTarget makes.
const childLabel = "lwreplay.test/child"

// childrenTarget is a small writing controller in the manner of
// examples/children:
//   - every configmap (a parent) gets a child configmap "<name>-child"
//     holding its name;
//   - a parent that is gone loses its child;
//   - the parent is annotated with its child's name.
//
// With markRelists it is edge-triggered by mistake. Each child also
// records whether the informer ever relisted: an update notification at an
// unchanged resourceVersion, as a relist's Replace delivers. So a legal
// fault that makes it relist (an expired watch) changes the end state.
func childrenTarget(name string, markRelists bool) Target {
	return childrenTargetWith(name, childrenOpts{markRelists: markRelists})
}

// childrenOpts are childrenTargetWith's variants of the controller.
type childrenOpts struct {
	// markRelists: each child records whether the informer ever relisted
	// (childrenTarget's edge-triggered mistake).
	markRelists bool
	// markAdopted: each child records whether this instance found it
	// made already (by an instance before it: a restart), another
	// edge-triggered mistake.
	markAdopted bool
	// hashNames: a child is "<parent>-<hash of the parent's UID>", owned by
	// its parent; the garbage collector deletes it with its parent. The
	// parent's annotation names it: correct.
	hashNames bool
}

// childrenTargetWith is childrenTarget with the variants o.
func childrenTargetWith(name string, o childrenOpts) Target {
	return Target{Name: name, Doc: "a children controller (" + name + ")", Run: func(ctx context.Context, env *Env) error {
		cs, err := env.Clientset()
		if err != nil {
			return err
		}
		factory := informers.NewSharedInformerFactory(cs, 0)
		cms := factory.Core().V1().ConfigMaps()
		c := &childrenController{client: cs, lister: cms.Lister(), childrenOpts: o,
			queue: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]())}
		inf := cms.Informer()
		if _, err := env.Probe.AddEventHandler(inf, nil); err != nil {
			return err
		}
		enqueue := func(obj any) {
			if cm, ok := obj.(*corev1.ConfigMap); ok && o.hashNames && len(cm.OwnerReferences) > 0 {
				c.queue.Add(cm.Namespace + "/" + cm.OwnerReferences[0].Name)
				return
			}
			if key, err := cache.DeletionHandlingMetaNamespaceKeyFunc(obj); err == nil {
				c.queue.Add(strings.TrimSuffix(key, "-child"))
			}
		}
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: enqueue,
			UpdateFunc: func(old, obj any) {
				if o, n, ok := configMapPair(old, obj); ok && o.ResourceVersion == n.ResourceVersion {
					c.relisted.Store(true)
				}
				enqueue(obj)
			}, DeleteFunc: enqueue}); err != nil {
			return err
		}
		env.Probe.SetSynced(inf.HasSynced)
		env.Probe.SetStore(inf.GetStore().List)
		factory.Start(ctx.Done())
		var wg sync.WaitGroup
		wg.Go(func() {
			<-ctx.Done()
			c.queue.ShutDown()
		})
		if cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			for c.next(ctx) {
			}
		}
		wg.Wait()
		factory.Shutdown()
		return nil
	}}
}

// childrenController is childrenTarget's controller.
type childrenController struct {
	client   kubernetes.Interface
	lister   listersv1.ConfigMapLister
	queue    workqueue.TypedRateLimitingInterface[string]
	relisted atomic.Bool
	made     sync.Map // parent keys this instance created a child of
	childrenOpts
}

// configMapPair returns old and obj as configmaps.
func configMapPair(old, obj any) (o, n *corev1.ConfigMap, ok bool) {
	o, ok1 := old.(*corev1.ConfigMap)
	n, ok2 := obj.(*corev1.ConfigMap)
	return o, n, ok1 && ok2
}

// next reconciles one key; false once the queue shut down.
func (c *childrenController) next(ctx context.Context) bool {
	key, shutdown := c.queue.Get()
	if shutdown {
		return false
	}
	defer c.queue.Done(key)
	if err := c.reconcile(ctx, key); err != nil && ctx.Err() == nil {
		c.queue.AddRateLimited(key)
		return true
	}
	c.queue.Forget(key)
	return true
}

// reconcile makes key's child follow its parent.
func (c *childrenController) reconcile(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	cms, child := c.client.CoreV1().ConfigMaps(ns), name+"-child"
	parent, err := c.lister.ConfigMaps(ns).Get(name)
	switch {
	case apierrors.IsNotFound(err) && c.hashNames:
		return nil // the garbage collector deletes its child
	case apierrors.IsNotFound(err):
		if err := cms.Delete(ctx, child, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return err
		}
		return nil
	case err != nil:
		return err
	case parent.Labels[childLabel] != "" || (c.hashNames && len(parent.OwnerReferences) > 0):
		return nil
	}
	var owners []metav1.OwnerReference
	if c.hashNames {
		h := fnv.New32a()
		h.Write([]byte(parent.UID))
		child = fmt.Sprintf("%s-%08x", name, h.Sum32())
		owners = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: name, UID: parent.UID, Controller: ptr.To(true)}}
	}
	want := map[string]string{"parent": name}
	if c.markRelists {
		want["relisted"] = strconv.FormatBool(c.relisted.Load())
	}
	have, err := c.lister.ConfigMaps(ns).Get(child)
	if _, mine := c.made.Load(key); c.markAdopted && err == nil && !mine {
		want["adopted"] = "true"
	}
	switch {
	case apierrors.IsNotFound(err):
		c.made.Store(key, true)
		_, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: child, Namespace: ns, Labels: map[string]string{childLabel: "true"}, OwnerReferences: owners},
			Data: want}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return err
		}
	case err != nil:
		return err
	case fmt.Sprint(have.Data) != fmt.Sprint(want):
		upd := have.DeepCopy()
		upd.Data = want
		if _, err := cms.Update(ctx, upd, metav1.UpdateOptions{}); err != nil {
			return err
		}
	}
	if parent.Annotations[childLabel] == child {
		return nil
	}
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := cms.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cur.Annotations == nil {
			cur.Annotations = map[string]string{}
		}
		cur.Annotations[childLabel] = child
		_, err = cms.Update(ctx, cur, metav1.UpdateOptions{})
		return err
	})
}
