package actors

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubernetes/pkg/api/legacyscheme"
)

// Default applies kube-apiserver's defaults to obj, a typed built-in
// object of a served version (an apps/v1 StatefulSet), as kube-apiserver
// does before it stores a create or an update: the defaulting functions
// of k8s.io/kubernetes/pkg/apis/<group>/<version> (for example a
// StatefulSet's revisionHistoryLimit 10, its update strategy, its pod
// template's restartPolicy). kube-controller-manager's controllers rely
// on them (the StatefulSet controller dereferences revisionHistoryLimit);
// a replay stores objects as they were sent, so what a test or a target
// creates for them must be defaulted first.
func Default(obj runtime.Object) { legacyscheme.Scheme.Default(obj) }

// DefaultUnstructured is Default for an object as a replay holds it: u
// is decoded into its kind's typed object, defaulted and written back.
// A kind kube-apiserver does not build in (a custom resource) is left as
// it is.
func DefaultUnstructured(u *unstructured.Unstructured) error {
	gvk := u.GroupVersionKind()
	typed, err := legacyscheme.Scheme.New(gvk)
	if err != nil {
		return nil // not a built-in kind: kube-apiserver defaults it from its CRD's schema, not here
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, typed); err != nil {
		return fmt.Errorf("defaulting %s %s: %w", gvk, u.GetName(), err)
	}
	legacyscheme.Scheme.Default(typed)
	out, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return fmt.Errorf("defaulting %s %s: %w", gvk, u.GetName(), err)
	}
	u.Object = out
	u.SetGroupVersionKind(gvk)
	return nil
}
