package actors

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/component-helpers/scheduling/corev1/nodeaffinity"

	"github.com/lwreplay/lwreplay/actor"
)

// DefaultScheduler is the schedulerName of the pods the scheduler binds
// (a pod that names none gets it from kube-apiserver's defaulting).
const DefaultScheduler = corev1.DefaultSchedulerName

// BindDelay is how long the scheduler waits before it binds a pod that
// became schedulable. The nodes and pods of that instant have reached its
// informers by then. So its choice does not depend on how the actors'
// goroutines were scheduled at that instant.
const BindDelay = 100 * time.Millisecond

// Scheduler returns the actor "scheduler": a binder. It binds every pod
// with no spec.nodeName (schedulerName default-scheduler) through the
// pods/binding subresource. The node is Ready and schedulable, with
// taints the pod tolerates and labels its nodeSelector and required node
// affinity match. Of those it is the one with the fewest pods, ties
// broken by name. It binds BindDelay after the pod became schedulable.
// Like kube-scheduler's VolumeBinding, a pod whose
// PersistentVolumeClaims are not all Bound waits for them. Resources,
// pod (anti-)affinity, topology spread, priorities and preemption are
// not modelled.
//
// It is not kube-scheduler's own code. k8s.io/kubernetes/pkg/scheduler.New
// (1.35.4, 1.36.3 and 1.37.2 alike) always calls its cache debugger's
// ListenForSignal. Its signal.Notify on a channel made in the run's bubble
// makes Go's runtime fail the process: "fatal error: select on synctest
// channel from outside bubble". So it cannot run in virtual time.
func Scheduler() actor.Actor {
	return actor.Actor{
		Name: "scheduler",
		Doc: "binds unscheduled pods (default-scheduler) to the Ready, tolerated, selected node with the fewest pods, ties by name, " +
			"once their claims are Bound (pods/binding); a small binder: kube-scheduler's New calls signal.Notify, fatal in a synctest bubble",
		Run: func(ctx context.Context, env actor.Env) error {
			cs, err := clientFor(env, "scheduler")
			if err != nil {
				return err
			}
			return (&binder{cs: cs, assumed: map[string]string{}}).run(ctx)
		},
	}
}

// binder is one run of the scheduler actor. assumed is owned by its one
// worker. It holds the node each pod it bound went to, until its informer
// says so, by assumedKey. (A pod made anew under the same name is another
// pod.)
type binder struct {
	cs      kubernetes.Interface
	pods    corelisters.PodLister
	nodes   corelisters.NodeLister
	claims  corelisters.PersistentVolumeClaimLister
	q       *keyQueue
	wait    *delays
	assumed map[string]string
}

// run binds pods until ctx ends.
func (b *binder) run(ctx context.Context) error {
	f := informers.NewSharedInformerFactory(b.cs, 0)
	defer f.Shutdown()
	b.pods = f.Core().V1().Pods().Lister()
	b.nodes = f.Core().V1().Nodes().Lister()
	b.claims = f.Core().V1().PersistentVolumeClaims().Lister()
	b.q = newKeyQueue("scheduler")
	b.wait = newDelays(BindDelay)
	onPod := func(obj any) {
		if p, ok := obj.(*corev1.Pod); ok && unscheduled(p) {
			b.q.add(cache.MetaObjectToName(p).String())
		}
	}
	handlers := []struct {
		inf cache.SharedIndexInformer
		h   cache.ResourceEventHandlerFuncs
	}{
		{f.Core().V1().Pods().Informer(), cache.ResourceEventHandlerFuncs{AddFunc: onPod, UpdateFunc: func(_, o any) { onPod(o) }}},
		{f.Core().V1().Nodes().Informer(), cache.ResourceEventHandlerFuncs{AddFunc: b.retryAll(""), UpdateFunc: func(_, o any) { b.retryAll("")(o) }}},
		{f.Core().V1().PersistentVolumeClaims().Informer(), cache.ResourceEventHandlerFuncs{
			AddFunc: b.retryAll("claim"), UpdateFunc: func(_, o any) { b.retryAll("claim")(o) },
		}},
	}
	for _, h := range handlers {
		if _, err := h.inf.AddEventHandler(h.h); err != nil {
			return fmt.Errorf("scheduler: handler: %w", err)
		}
	}
	f.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), handlers[0].inf.HasSynced, handlers[1].inf.HasSynced, handlers[2].inf.HasSynced) {
		return nil // ctx ended
	}
	b.q.run(ctx, b.sync)
	return nil
}

// retryAll returns a handler that queues every unscheduled pod again, in
// key order (of the object's namespace when scope is "claim"). A node or
// claim changed, and a pod that waited for one may fit now.
func (b *binder) retryAll(scope string) func(any) {
	return func(obj any) {
		sel := b.pods.List
		if c, ok := obj.(*corev1.PersistentVolumeClaim); ok && scope == "claim" {
			sel = b.pods.Pods(c.Namespace).List
		}
		pods, _ := sel(labels.Everything())
		var keys []string
		for _, p := range pods {
			if unscheduled(p) {
				keys = append(keys, cache.MetaObjectToName(p).String())
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			b.q.add(k)
		}
	}
}

// unscheduled reports whether p is the scheduler's to bind. It has no
// node, is not being deleted, is not finished, and is of the default
// scheduler. It has no scheduling gates; kube-scheduler keeps a gated pod
// out of its queue.
func unscheduled(p *corev1.Pod) bool {
	return p.Spec.NodeName == "" && p.DeletionTimestamp == nil && len(p.Spec.SchedulingGates) == 0 &&
		(p.Spec.SchedulerName == "" || p.Spec.SchedulerName == DefaultScheduler) &&
		p.Status.Phase != corev1.PodSucceeded && p.Status.Phase != corev1.PodFailed
}

// sync binds the pod key names, when it is unscheduled and a node fits.
func (b *binder) sync(ctx context.Context, key string) error {
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil
	}
	p, err := b.pods.Pods(ns).Get(name)
	if apierrors.IsNotFound(err) || (err == nil && !unscheduled(p)) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, ok := b.assumed[assumedKey(key, p.UID)]; ok || !b.claimsBound(p) {
		b.wait.clear(key)
		return nil // bound already, its informer lags; or waits for its claims
	}
	if !b.wait.due(b.q, key, string(p.UID)) {
		return nil
	}
	node, ok := b.pick(p)
	if !ok {
		return nil // a node event queues it again
	}
	err = b.cs.CoreV1().Pods(ns).Bind(ctx, &corev1.Binding{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: p.UID},
		Target:     corev1.ObjectReference{Kind: "Node", Name: node},
	}, metav1.CreateOptions{})
	switch {
	case err == nil:
		b.assumed[assumedKey(key, p.UID)] = node
		return nil
	case apierrors.IsNotFound(err) || apierrors.IsConflict(err):
		return nil // gone, or bound by another
	default:
		return fmt.Errorf("scheduler: bind %s to %s: %w", key, node, err)
	}
}

// claimsBound reports whether every PersistentVolumeClaim p's volumes
// name (an ephemeral volume's is <pod>-<volume>) is Bound.
func (b *binder) claimsBound(p *corev1.Pod) bool {
	for _, v := range p.Spec.Volumes {
		name := ""
		switch {
		case v.PersistentVolumeClaim != nil:
			name = v.PersistentVolumeClaim.ClaimName
		case v.Ephemeral != nil:
			name = p.Name + "-" + v.Name
		default:
			continue
		}
		c, err := b.claims.PersistentVolumeClaims(p.Namespace).Get(name)
		if err != nil || c.Status.Phase != corev1.ClaimBound {
			return false
		}
	}
	return true
}

// pick returns the node p goes to: of those that fit, the one with the
// fewest pods, ties by name. Its pods are those bound, and those it
// bound that its informer has not shown yet.
func (b *binder) pick(p *corev1.Pod) (string, bool) {
	nodes, _ := b.nodes.List(labels.Everything())
	count := map[string]int{}
	// One read of the informer: its pods may change meanwhile, and a pod
	// read unbound, then bound, would be counted by neither loop.
	pods, _ := b.pods.List(labels.Everything())
	unbound := map[string]bool{}
	for _, q := range pods {
		switch {
		case q.Spec.NodeName == "":
			unbound[assumedKey(cache.MetaObjectToName(q).String(), q.UID)] = true
		case q.Status.Phase != corev1.PodSucceeded && q.Status.Phase != corev1.PodFailed:
			count[q.Spec.NodeName]++
		}
	}
	for key, node := range b.assumed {
		if unbound[key] {
			count[node]++
			continue
		}
		delete(b.assumed, key) // shown bound, or gone
	}
	best := ""
	for _, n := range nodes {
		if !fits(p, n) {
			continue
		}
		if best == "" || cmp.Or(cmp.Compare(count[n.Name], count[best]), cmp.Compare(n.Name, best)) < 0 {
			best = n.Name
		}
	}
	return best, best != ""
}

// fits reports whether p may run on n: n Ready and schedulable, its
// NoSchedule and NoExecute taints tolerated, p's nodeSelector and
// required node affinity matched.
func fits(p *corev1.Pod, n *corev1.Node) bool {
	if !isNodeReady(n) || n.Spec.Unschedulable || n.DeletionTimestamp != nil {
		return false
	}
	for _, t := range n.Spec.Taints {
		if t.Effect != corev1.TaintEffectPreferNoSchedule && !tolerated(p.Spec.Tolerations, t) {
			return false
		}
	}
	ok, err := nodeaffinity.GetRequiredNodeAffinity(p).Match(n)
	return err == nil && ok
}

// tolerated reports whether one of ts tolerates taint t (key, value and
// effect as corev1.Toleration.ToleratesTaint compares them).
func tolerated(ts []corev1.Toleration, t corev1.Taint) bool {
	for _, tol := range ts {
		if tol.Effect != "" && tol.Effect != t.Effect {
			continue
		}
		if tol.Key != "" && tol.Key != t.Key {
			continue
		}
		switch tol.Operator {
		case corev1.TolerationOpExists:
			return true
		case "", corev1.TolerationOpEqual:
			if tol.Key != "" && tol.Value == t.Value {
				return true
			}
		}
	}
	return false
}

// assumedKey keys binder.assumed: a pod's namespace/name and its UID (a
// StatefulSet's pod deleted and made anew is another pod to bind).
func assumedKey(key string, uid types.UID) string { return key + "/" + string(uid) }
