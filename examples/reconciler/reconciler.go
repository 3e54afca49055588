// Package reconciler is a kubebuilder-style controller-runtime reconciler
// that lwreplay fuzzes. For every configmap (a parent) it keeps one child
// configmap holding the parent's data. The parent owns it (an
// ownerReference, controller true). It reports the child's name on the
// parent. That is the "create owned objects, then report status" shape of
// most operators. Built-in kinds have no status of their own to write, so
// the report is an annotation; a custom resource's would be a status
// subresource write.
//
// WithGenerateName plants an intermediate-state bug of the kind Sieve
// (OSDI'22) found in real operators. The child is created under a
// generated name, and found again only through the parent's report. Take a
// controller that crashes between the create and the report (lwreplay's
// crash-after-write fault). It leaves a child the restarted controller
// cannot see, and makes another one. The default names the child after its
// parent and finds it by that name: a crash anywhere leaves nothing it
// cannot finish.
//
// WithMemo plants an unobserved-state bug (Sieve's third class). The
// reconciler remembers, by name, the parents it has given a child. It makes
// none for them again, to spare a create its cache may not show yet. Take a
// parent deleted and created again under its name while the reconciler's
// watch was away. (That is lwreplay's recreate fault; the relist shows only
// the new object.) It is taken for the one it gave a child. The garbage
// collector deletes the old parent's child, and the new parent never gets
// its own. The default keeps no memory between reconciles: level-based, it
// reads what is there each time.
package reconciler

import (
	"context"
	"fmt"
	"maps"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
)

const (
	// ChildLabel marks a child configmap (value: its parent's name), so
	// that a child is never a parent.
	ChildLabel = "example.lwreplay.dev/child-of"
	// ReportAnnotation is the parent's report: its child's name.
	ReportAnnotation = "example.lwreplay.dev/child"
)

// Reconciler keeps one child per parent configmap.
type Reconciler struct {
	client       client.Client
	reader       client.Reader
	generateName bool

	memo bool // WithMemo
	mu   sync.Mutex
	done map[types.NamespacedName]bool // with memo: the parents given a child, by name
}

// Option configures a Reconciler.
type Option func(*Reconciler)

// WithGenerateName plants the intermediate-state bug: children are created
// with metadata.generateName and found only through the parent's report.
func WithGenerateName() Option { return func(r *Reconciler) { r.generateName = true } }

// WithMemo plants the unobserved-state bug: the reconciler remembers by
// name the parents it has given a child, and makes none for them again.
func WithMemo() Option { return func(r *Reconciler) { r.memo = true } }

// New returns a Reconciler writing through c and reading through
// reader. reader is a manager's API reader: its reads are never older
// than the reconciler's own writes. So only a crash can hide one.
func New(c client.Client, reader client.Reader, opts ...Option) *Reconciler {
	r := &Reconciler{client: c, reader: reader, done: map[types.NamespacedName]bool{}}
	for _, o := range opts {
		o(r)
	}
	return r
}

// SetupWithManager registers the reconciler with mgr: For parents, Owns
// children (a child's change wakes its parent).
func (r *Reconciler) SetupWithManager(mgr ctrl.Manager, opts controller.Options) error {
	parents := predicate.NewPredicateFuncs(func(o client.Object) bool { return o.GetLabels()[ChildLabel] == "" })
	return ctrl.NewControllerManagedBy(mgr).
		Named("children").
		For(&corev1.ConfigMap{}, builder.WithPredicates(parents)).
		Owns(&corev1.ConfigMap{}).
		WithOptions(opts).
		Complete(r)
}

// Reconcile makes sure the parent req names has its child and reports it.
func (r *Reconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var parent corev1.ConfigMap
	if err := r.reader.Get(ctx, req.NamespacedName, &parent); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if parent.Labels[ChildLabel] != "" || parent.DeletionTimestamp != nil {
		return ctrl.Result{}, nil
	}
	child, err := r.child(ctx, &parent)
	if err != nil {
		return ctrl.Result{}, err
	}
	if child == nil && r.memo && r.provided(req.NamespacedName) {
		return ctrl.Result{}, nil // the planted bug: a parent of that name was given its child
	}
	if child == nil {
		if child, err = r.create(ctx, &parent); err != nil {
			return ctrl.Result{}, err
		}
	}
	if !maps.Equal(child.Data, parent.Data) { // level-based: the child follows its parent's data
		patch := client.MergeFrom(child.DeepCopy())
		child.Data = parent.Data
		if err := r.client.Patch(ctx, child, patch); err != nil {
			return ctrl.Result{}, err
		}
	}
	if parent.Annotations[ReportAnnotation] != child.Name {
		patch := client.MergeFrom(parent.DeepCopy())
		if parent.Annotations == nil {
			parent.Annotations = map[string]string{}
		}
		parent.Annotations[ReportAnnotation] = child.Name
		if err := r.client.Patch(ctx, &parent, patch); err != nil {
			return ctrl.Result{}, err
		}
	}
	if r.memo {
		r.mu.Lock()
		r.done[req.NamespacedName] = true
		r.mu.Unlock()
	}
	return ctrl.Result{}, nil
}

// provided reports whether the memo holds a parent of name: one given a
// child.
func (r *Reconciler) provided(name types.NamespacedName) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.done[name]
}

// child finds the parent's child: by its name, or (with the planted bug)
// by the name the parent's report gives. Nil when there is none.
func (r *Reconciler) child(ctx context.Context, parent *corev1.ConfigMap) (*corev1.ConfigMap, error) {
	name := parent.Name + "-child"
	if r.generateName {
		if name = parent.Annotations[ReportAnnotation]; name == "" {
			return nil, nil
		}
	}
	var c corev1.ConfigMap
	err := r.reader.Get(ctx, types.NamespacedName{Namespace: parent.Namespace, Name: name}, &c)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return &c, nil
}

// create makes the parent's child, owned by it.
func (r *Reconciler) create(ctx context.Context, parent *corev1.ConfigMap) (*corev1.ConfigMap, error) {
	c := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: parent.Namespace, Labels: map[string]string{ChildLabel: parent.Name}},
		Data:       parent.Data,
	}
	if r.generateName {
		c.GenerateName = parent.Name + "-"
	} else {
		c.Name = parent.Name + "-child"
	}
	if err := controllerutil.SetControllerReference(parent, c, r.client.Scheme()); err != nil {
		return nil, fmt.Errorf("own %s: %w", parent.Name, err)
	}
	if err := r.client.Create(ctx, c); err != nil {
		return nil, err
	}
	return c, nil
}
