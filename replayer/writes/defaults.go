package writes

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// storedDefaults is obj, the object a write of a built-in kind stores
// after its strategy, defaulted as kube-apiserver stores it. Its storage
// codec decodes what it writes with the version's SetDefaults.
// (k8s.io/apiserver pkg/registry/generic/registry/store.go Create and
// Update decode the stored bytes into out. k8s.io/apimachinery
// pkg/runtime/serializer versioning codec Decode defaults.) So the answer
// and the watch event carry defaults of fields the strategy reset. A new
// PersistentVolumeClaim's and PersistentVolume's status.phase is Pending,
// a Namespace's Active. It is obj itself when the kind has no Defaulter.
func storedDefaults(k Kind, obj *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if !k.Builtin || k.Defaulter == nil {
		return obj, nil
	}
	out, err := throughType(k, obj)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	return out, nil
}
