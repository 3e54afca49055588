package writes

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// create answers a POST (owned by the create/update/delete rules).
func create(st State, env Env, req Request) (Result, error) {
	return Result{}, apierrors.NewMethodNotSupported(groupResource(req.Kind), "create")
}

// createObject stores obj as a new object of req.Kind with the create
// rules (uid, creationTimestamp, generation, resourceVersion, generateName,
// AlreadyExists, an RV set on create refused): server-side apply's create
// of a missing object calls it too.
func createObject(st State, env Env, req Request, obj *unstructured.Unstructured) (Result, error) {
	return Result{}, apierrors.NewMethodNotSupported(groupResource(req.Kind), "create")
}
