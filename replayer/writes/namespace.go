package writes

import (
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Namespaces, as kube-apiserver's namespace registry keeps them
// (k8s.io/kubernetes v1.37.2 pkg/registry/core/namespace: strategy.go,
// storage/storage.go). A new namespace is Active with the "kubernetes"
// finalizer in spec.finalizers. Its first DELETE only marks it: a
// deletionTimestamp and phase Terminating. The namespace controller
// empties its content, then spec.finalizers through the finalize
// subresource. An update that leaves both finalizer lists empty on a
// terminating namespace deletes it.

// finalizerKubernetes is the spec finalizer every namespace is created
// with (api.FinalizerKubernetes).
const finalizerKubernetes = "kubernetes"

// isNamespaces says k is the core group's namespaces.
func isNamespaces(k Kind) bool {
	return k.Builtin && k.Resource.Group == "" && k.Resource.Resource == "namespaces"
}

// specFinalizers are obj's spec.finalizers.
func specFinalizers(obj *unstructured.Unstructured) []string {
	f, _, _ := unstructured.NestedStringSlice(obj.Object, "spec", "finalizers")
	return f
}

// namespaceCreate is namespaceStrategy.PrepareForCreate (strategy.go):
// status is phase Active alone, and spec.finalizers gets "kubernetes"
// when it lacks it.
func namespaceCreate(obj *unstructured.Unstructured) {
	obj.Object["status"] = map[string]any{"phase": "Active"}
	f := specFinalizers(obj)
	if !slices.Contains(f, finalizerKubernetes) {
		f = append(f, finalizerKubernetes)
		_ = unstructured.SetNestedStringSlice(obj.Object, f, "spec", "finalizers") // spec is an object: decoded as the kind
	}
}

// namespaceUpdate is namespaceStrategy.PrepareForUpdate beyond the
// status split (strategy.go): the main resource keeps the stored
// spec.finalizers. The finalize subresource (namespaceFinalizeStrategy)
// keeps the stored status only, as keepStatus does; the status
// subresource keeps the stored spec, as statusOnly does.
func namespaceUpdate(req Request, old, obj *unstructured.Unstructured) {
	if req.Subresource != "" {
		return
	}
	if f, ok, _ := unstructured.NestedFieldCopy(old.Object, "spec", "finalizers"); ok {
		_ = unstructured.SetNestedField(obj.Object, f, "spec", "finalizers") // spec is an object
	} else {
		unstructured.RemoveNestedField(obj.Object, "spec", "finalizers")
	}
}

// namespaceKept says an update of a namespace keeps it, though the
// generic store would delete it (finalizers emptied on a deleting
// object). It does when its spec.finalizers are not empty (storage.go
// ShouldDeleteNamespaceDuringUpdate).
func namespaceKept(k Kind, obj *unstructured.Unstructured) bool {
	return isNamespaces(k) && len(specFinalizers(obj)) > 0
}

// delNamespace answers a DELETE of the namespace old as REST.Delete does
// (storage.go). It checks a UID precondition of its own. The first delete
// marks it and answers it: deletionTimestamp now, phase Terminating, the
// garbage collector's finalizers as opts say. A delete of a terminating
// one with spec.finalizers left answers it as stored. Else the generic
// delete runs (done false).
func delNamespace(env Env, req Request, opts metav1.DeleteOptions, old *unstructured.Unstructured, dryRun bool) (res Result, done bool, err error) {
	gr := schema.GroupResource{Resource: "namespaces"}
	if p := opts.Preconditions; p != nil && p.UID != nil && *p.UID != old.GetUID() {
		return Result{}, true, apierrors.NewConflict(gr, old.GetName(),
			fmt.Errorf("Precondition failed: UID in precondition: %v, UID in object meta: %v", *p.UID, old.GetUID()))
	}
	if p := opts.Preconditions; p != nil && p.ResourceVersion != nil && *p.ResourceVersion != old.GetResourceVersion() {
		return Result{}, true, apierrors.NewConflict(gr, old.GetName(),
			fmt.Errorf("Precondition failed: ResourceVersion in precondition: %v, ResourceVersion in object meta: %v", *p.ResourceVersion, old.GetResourceVersion()))
	}
	if old.GetDeletionTimestamp() == nil {
		obj := old.DeepCopy()
		now := metav1.NewTime(env.Now)
		obj.SetDeletionTimestamp(&now)
		if _, ok := obj.Object["status"].(map[string]any); !ok {
			obj.Object["status"] = map[string]any{}
		}
		_ = unstructured.SetNestedField(obj.Object, "Terminating", "status", "phase") // status is an object
		obj.SetFinalizers(gcFinalizers(old, opts))
		if dryRun {
			return Result{Code: deleteCode(opts), Event: None, Answer: obj}, true, nil
		}
		stored := stamped(obj, env.NextRV())
		return Result{Code: deleteCode(opts), Event: Modified, Stored: stored, Answer: stored, AnswerIsStored: true}, true, nil
	}
	if len(specFinalizers(old)) > 0 {
		// "prior to final deletion, we must ensure that finalizers is
		// empty": the namespace, not deleted (handlers/delete.go: 200)
		return Result{Code: deleteCode(opts), Event: None, Answer: old.DeepCopy()}, true, nil
	}
	return Result{}, false, nil
}

// noFinalizeVerb is the answer to a finalize request other than a PUT:
// FinalizeREST is a rest.Updater only, without a Getter.
func noFinalizeVerb(req Request) error {
	return apierrors.NewMethodNotSupported(schema.GroupResource{Resource: "namespaces/finalize"}, req.Verb.String())
}

// admitNamespace is the NamespaceLifecycle admission of a create of a
// namespaced object named name (k8s.io/apiserver v0.37.2
// pkg/admission/plugin/namespace/lifecycle/admission.go Lifecycle.Admit):
// Forbidden in a namespace that exists and is terminating. A create in a
// missing namespace is let through (the plugin answers NotFound there;
// not modelled: a replay may not record namespaces at all).
func admitNamespace(env Env, req Request, name string) error {
	if env.Namespace == nil || !req.Kind.Resource.Namespaced || req.Namespace == "" {
		return nil
	}
	ns, ok := env.Namespace(req.Namespace)
	if !ok {
		return nil
	}
	if phase, _, _ := unstructured.NestedString(ns.Object, "status", "phase"); phase != "Terminating" {
		return nil
	}
	if name == "" {
		name = "Unknown"
	}
	err := apierrors.NewForbidden(groupResource(req.Kind), name,
		fmt.Errorf("unable to create new content in namespace %s because it is being terminated", req.Namespace))
	err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
		Type:    corev1.NamespaceTerminatingCause,
		Message: fmt.Sprintf("namespace %s is being terminated", req.Namespace),
		Field:   "metadata.namespace",
	})
	return err
}
