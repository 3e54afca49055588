// Package kvstore is a kubebuilder-style operator that lwreplay fuzzes
// with the cluster's own controllers as the other actors. For every
// KVStore (kv.lwreplay.dev/v1, a status subresource) it keeps a headless
// Service and a StatefulSet. The KVStore controls both. The StatefulSet
// has spec.replicas pods, each with a PersistentVolumeClaim of its own
// (volumeClaimTemplates). It reports status.readyReplicas and the
// condition Ready, true once the StatefulSet's readyReplicas equals
// spec.replicas. It scales the StatefulSet to spec.replicas, reading the
// KVStore afresh (the API reader) before it does: a stale cache must not
// undo a user's scale.
//
// On a scale-down it deletes the PVCs of the removed ordinals, as
// operators of stateful stores do. (The StatefulSet controller keeps
// them: its default retention policy is Retain.) A PVC is deleted only
// once the pod of its ordinal is gone, read through the API reader, and
// the StatefulSet no longer wants that ordinal. WithStatusCleanup plants
// the stale-state bug of that class (cass-operator#118, Sieve's and
// Acto's scale-down bugs). It deletes them right after patching the
// replicas, when the StatefulSet's status as cached says no more replicas
// exist than wanted. On a fresh view that is safe: status.replicas counts
// a pod until it is gone. On a stale one — a status frame late, so the
// cache still shows the StatefulSet scaling up — it deletes the volumes
// of pods that still run.
package kvstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
)

// RequeueWhilePodsRun is how soon a KVStore whose removed ordinals'
// pods still run is looked at again.
const RequeueWhilePodsRun = 2 * time.Second

// Reconciler keeps a KVStore's Service and StatefulSet, scales it and
// reports its readiness.
type Reconciler struct {
	client client.Client
	reader client.Reader

	statusCleanup bool // WithStatusCleanup
}

// Option configures a Reconciler.
type Option func(*Reconciler)

// WithStatusCleanup plants the stale-state bug. On a scale-down, the
// removed ordinals' PVCs are deleted as soon as the cached StatefulSet
// status says no more replicas exist than wanted. The pods are
// unchecked.
func WithStatusCleanup() Option { return func(r *Reconciler) { r.statusCleanup = true } }

// New returns a Reconciler writing through c, and reading afresh
// through reader (a manager's API reader). It reads KVStores,
// StatefulSets and Services from c: a manager's client reads from its
// cache.
func New(c client.Client, reader client.Reader, opts ...Option) *Reconciler {
	r := &Reconciler{client: c, reader: reader}
	for _, o := range opts {
		o(r)
	}
	return r
}

// SetupWithManager registers the reconciler with mgr: For KVStores, Owns
// StatefulSets and Services (a change of one wakes its KVStore).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("kvstore").
		For(&KVStore{}).
		Owns(&appsv1.StatefulSet{}).
		Owns(&corev1.Service{}).
		WithOptions(opts).
		Complete(r)
}

// Reconcile makes the KVStore req names have its Service and StatefulSet,
// scales the StatefulSet, deletes the volumes of removed ordinals and
// reports readiness.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var kv KVStore
	if err := r.client.Get(ctx, req.NamespacedName, &kv); err != nil { // the cache: kubebuilder's default
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if kv.DeletionTimestamp != nil { // the garbage collector deletes what it controls
		return ctrl.Result{}, nil
	}
	if err := r.ensureService(ctx, &kv); err != nil {
		return ctrl.Result{}, err
	}
	sts, err := r.ensureStatefulSet(ctx, &kv)
	if err != nil {
		return ctrl.Result{}, err
	}
	wait, err := r.scale(ctx, &kv, sts)
	if err != nil {
		return ctrl.Result{}, err
	}
	if err := r.report(ctx, &kv, sts); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: wait}, nil
}

// scale patches the StatefulSet's replicas to the KVStore's, read
// afresh, and deletes the removed ordinals' PVCs. It returns how soon to
// look again while their pods run.
func (r *Reconciler) scale(ctx context.Context, kv *KVStore, sts *appsv1.StatefulSet) (time.Duration, error) {
	var fresh KVStore
	if err := r.reader.Get(ctx, client.ObjectKeyFromObject(kv), &fresh); err != nil {
		return 0, client.IgnoreNotFound(err)
	}
	if fresh.UID != kv.UID || fresh.DeletionTimestamp != nil { // another KVStore, or going: a later event says
		return 0, nil
	}
	want := fresh.Spec.Replicas
	cached := sts.Status // what the planted cleanup decides on
	if replicasOf(sts) != want {
		patch := client.MergeFrom(sts.DeepCopy())
		sts.Spec.Replicas = &want
		if err := r.client.Patch(ctx, sts, patch); err != nil {
			return 0, err
		}
	}
	if r.statusCleanup { // the planted bug
		if cached.Replicas > want {
			return RequeueWhilePodsRun, nil
		}
		return 0, r.deleteClaims(ctx, kv, want, nil)
	}
	return r.cleanup(ctx, kv, want)
}

// cleanup deletes the PVCs of ordinals at or above want whose pod is gone
// (read through the API reader). The StatefulSet, read afresh, must no
// longer want them. It returns RequeueWhilePodsRun while a pod runs.
func (r *Reconciler) cleanup(ctx context.Context, kv *KVStore, want int32) (time.Duration, error) {
	var sts appsv1.StatefulSet
	if err := r.reader.Get(ctx, client.ObjectKeyFromObject(kv), &sts); err != nil {
		return 0, client.IgnoreNotFound(err)
	}
	var wait time.Duration
	err := r.deleteClaims(ctx, kv, max(want, replicasOf(&sts)), func(ordinal int) (bool, error) {
		var pod corev1.Pod
		err := r.reader.Get(ctx, types.NamespacedName{Namespace: kv.Namespace, Name: podName(kv, ordinal)}, &pod)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		if err == nil {
			wait = RequeueWhilePodsRun
		}
		return false, err
	})
	return wait, err
}

// deleteClaims deletes the KVStore's PVCs of ordinals at or above from,
// listed through the API reader. It deletes each one gone allows (nil:
// every one), with a precondition on its UID.
func (r *Reconciler) deleteClaims(ctx context.Context, kv *KVStore, from int32, gone func(ordinal int) (bool, error)) error {
	var pvcs corev1.PersistentVolumeClaimList
	if err := r.reader.List(ctx, &pvcs, client.InNamespace(kv.Namespace), client.MatchingLabels(selector(kv))); err != nil {
		return err
	}
	for i := range pvcs.Items {
		pvc := &pvcs.Items[i]
		ordinal, ok := claimOrdinal(kv, pvc.Name)
		if !ok || ordinal < int(from) || pvc.DeletionTimestamp != nil {
			continue
		}
		if gone != nil {
			ok, err := gone(ordinal)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
		}
		err := r.client.Delete(ctx, pvc, client.Preconditions{UID: &pvc.UID})
		if err != nil && !apierrors.IsNotFound(err) && !apierrors.IsConflict(err) { // gone, or another PVC now
			return err
		}
	}
	return nil
}

// report writes the KVStore's readyReplicas, observedGeneration and Ready
// condition when they changed.
func (r *Reconciler) report(ctx context.Context, kv *KVStore, sts *appsv1.StatefulSet) error {
	before := kv.Status.DeepCopy()
	kv.Status.ReadyReplicas = sts.Status.ReadyReplicas
	kv.Status.ObservedGeneration = kv.Generation
	cond := metav1.Condition{Type: ConditionReady, Status: metav1.ConditionFalse, ObservedGeneration: kv.Generation,
		Reason: "ReplicasNotReady", Message: fmt.Sprintf("%d of %d replicas ready", sts.Status.ReadyReplicas, kv.Spec.Replicas)}
	if sts.Status.ReadyReplicas == kv.Spec.Replicas {
		cond.Status, cond.Reason = metav1.ConditionTrue, "ReplicasReady"
	}
	meta.SetStatusCondition(&kv.Status.Conditions, cond)
	if sameStatus(before, &kv.Status) {
		return nil
	}
	return r.client.Status().Update(ctx, kv) // resourceVersion-checked: 409 on a stale KVStore
}

// sameStatus says whether a and b report the same, condition times aside.
func sameStatus(a, b *KVStoreStatus) bool {
	if a.ReadyReplicas != b.ReadyReplicas || a.ObservedGeneration != b.ObservedGeneration || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for i := range a.Conditions {
		x, y := a.Conditions[i], b.Conditions[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message || x.ObservedGeneration != y.ObservedGeneration {
			return false
		}
	}
	return true
}

// replicasOf returns the StatefulSet's spec.replicas (1 when unset, as
// the API defaults it).
func replicasOf(sts *appsv1.StatefulSet) int32 {
	if sts.Spec.Replicas == nil {
		return 1
	}
	return *sts.Spec.Replicas
}

// podName is the name of the KVStore's pod of ordinal.
func podName(kv *KVStore, ordinal int) string { return kv.Name + "-" + strconv.Itoa(ordinal) }

// claimOrdinal returns the ordinal of the KVStore's PVC name
// (<volume>-<statefulset>-<ordinal>).
func claimOrdinal(kv *KVStore, name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, VolumeName+"-"+kv.Name+"-")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(rest)
	return n, err == nil && n >= 0
}
