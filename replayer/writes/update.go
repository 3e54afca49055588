package writes

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// update answers a PUT (owned by the create/update/delete rules).
func update(st State, env Env, req Request) (Result, error) {
	return Result{}, apierrors.NewMethodNotSupported(groupResource(req.Kind), "update")
}

// store stores obj as the new version of old (the stored object) with
// the update rules — the resourceVersion precondition, uid and
// creationTimestamp kept, generation, a deletionTimestamp never removed,
// the status subresource's split, finalizers emptied on a deleting object
// deleting it — and answers as a PUT does; a patch computes obj and calls
// it.
func store(st State, env Env, req Request, old, obj *unstructured.Unstructured) (Result, error) {
	return Result{}, apierrors.NewMethodNotSupported(groupResource(req.Kind), "update")
}
