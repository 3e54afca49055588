// Package widgets is a kubebuilder-style controller of a custom resource
// that lwreplay fuzzes. For every Widget (example.lwreplay.dev/v1, a
// status subresource) it keeps one ConfigMap named after the widget. The
// widget controls it (an ownerReference, controller true). It holds the
// widget's spec.data. The reconciler reports it through the status
// subresource (status.configMap, status.observedGeneration). The widget
// is read from the manager's cache, as kubebuilder's scaffold does; the
// ConfigMap through the API reader.
//
// On a widget being deleted (a deletionTimestamp: a finalizer holds it)
// the reconciler deletes its ConfigMap at once rather than wait for the
// garbage collector. WithNameOnlyCleanup plants a stale-state bug of the
// kind Sieve (OSDI'22) found in real operators. It deletes the ConfigMap
// named after the widget, without checking that the ConfigMap is that
// widget's. On a fresh view that is the same thing. Take a stale one: a
// restarted controller whose first LIST, at resourceVersion "0", is
// served by a lagging watch cache. (That is lwreplay's crash-after-write
// with stale-list.) The cache still shows a widget that was deleted and
// created again under its name: the old one, deleting. The reconciler
// deletes the new widget's ConfigMap. The default deletes a ConfigMap
// only when the widget controls it, with a delete precondition on the
// ConfigMap's UID and resourceVersion.
package widgets

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
)

// Reconciler keeps one ConfigMap per widget and reports it in the
// widget's status.
type Reconciler struct {
	client client.Client
	reader client.Reader

	nameOnly bool // WithNameOnlyCleanup
}

// Option configures a Reconciler.
type Option func(*Reconciler)

// WithNameOnlyCleanup plants the stale-state bug: a deleting widget's
// ConfigMap is deleted by name, whoever controls it.
func WithNameOnlyCleanup() Option { return func(r *Reconciler) { r.nameOnly = true } }

// New returns a Reconciler writing through c, and reading ConfigMaps
// through reader (a manager's API reader). It reads widgets from c: a
// manager's client reads from its cache.
func New(c client.Client, reader client.Reader, opts ...Option) *Reconciler {
	r := &Reconciler{client: c, reader: reader}
	for _, o := range opts {
		o(r)
	}
	return r
}

// SetupWithManager registers the reconciler with mgr: For widgets, Owns
// ConfigMaps (a ConfigMap's change wakes its widget).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	return ctrl.NewControllerManagedBy(mgr).
		Named("widgets").
		For(&Widget{}).
		Owns(&corev1.ConfigMap{}).
		WithOptions(opts).
		Complete(r)
}

// Reconcile makes the ConfigMap of the widget req names hold its data and
// reports it; on a deleting widget it deletes the widget's ConfigMap.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var w Widget
	if err := r.client.Get(ctx, req.NamespacedName, &w); err != nil { // the cache: kubebuilder's default
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	cm, err := r.configMap(ctx, &w)
	if err != nil {
		return ctrl.Result{}, err
	}
	if w.DeletionTimestamp != nil {
		return ctrl.Result{}, r.cleanup(ctx, &w, cm)
	}
	if cm == nil {
		if cm, err = r.create(ctx, &w); err != nil {
			return ctrl.Result{}, err
		}
	}
	if !metav1.IsControlledBy(cm, &w) {
		// a predecessor's, which the garbage collector deletes (or a
		// stale view of the widget): wait for the ConfigMap's delete
		return ctrl.Result{}, fmt.Errorf("configmap %s/%s: controlled by another object than widget %s (uid %s)", cm.Namespace, cm.Name, w.Name, w.UID)
	}
	if !maps.Equal(cm.Data, w.Spec.Data) {
		patch := client.MergeFrom(cm.DeepCopy())
		cm.Data = w.Spec.Data
		if err := r.client.Patch(ctx, cm, patch); err != nil {
			return ctrl.Result{}, err
		}
	}
	if w.Status.ConfigMap != cm.Name || w.Status.ObservedGeneration != w.Generation {
		w.Status.ConfigMap = cm.Name
		w.Status.ObservedGeneration = w.Generation
		if err := r.client.Status().Update(ctx, &w); err != nil { // resourceVersion-checked: 409 on a stale widget
			return ctrl.Result{}, err
		}
	}
	return ctrl.Result{}, nil
}

// cleanup deletes a deleting widget's ConfigMap: only one it controls,
// with preconditions on the ConfigMap read. With the planted bug, it
// deletes the one named after it, unchecked.
func (r *Reconciler) cleanup(ctx context.Context, w *Widget, cm *corev1.ConfigMap) error {
	var err error
	switch {
	case r.nameOnly: // the planted bug
		err = r.client.Delete(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name}})
	case cm == nil || !metav1.IsControlledBy(cm, w):
		return nil
	default:
		err = r.client.Delete(ctx, cm, client.Preconditions{UID: &cm.UID, ResourceVersion: &cm.ResourceVersion})
	}
	if apierrors.IsNotFound(err) || apierrors.IsConflict(err) { // gone, or changed: a later reconcile sees what is there
		return nil
	}
	return err
}

// configMap reads the widget's ConfigMap through the API reader; nil when
// there is none.
func (r *Reconciler) configMap(ctx context.Context, w *Widget) (*corev1.ConfigMap, error) {
	var cm corev1.ConfigMap
	err := r.reader.Get(ctx, types.NamespacedName{Namespace: w.Namespace, Name: w.Name}, &cm)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &cm, nil
}

// create makes the widget's ConfigMap, controlled by it.
func (r *Reconciler) create(ctx context.Context, w *Widget) (*corev1.ConfigMap, error) {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: w.Namespace, Name: w.Name},
		Data:       w.Spec.Data,
	}
	if err := controllerutil.SetControllerReference(w, cm, r.client.Scheme()); err != nil {
		return nil, fmt.Errorf("own %s: %w", w.Name, err)
	}
	if err := r.client.Create(ctx, cm); err != nil {
		return nil, err
	}
	return cm, nil
}
