package level

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/history"
)

// ErrNotAnObject says a store held an item that is no Kubernetes object.
var ErrNotAnObject = errors.New("not a Kubernetes object")

// ObjectOf turns a stored object into a history object; an unstructured
// one is encoded directly, in canonical form.
func ObjectOf(obj any) (*history.Object, error) {
	if u, ok := obj.(*unstructured.Unstructured); ok && u != nil && u.GetName() != "" {
		m := maps.Clone(u.Object)
		delete(m, "kind")
		delete(m, "apiVersion")
		raw, err := json.Marshal(m)
		if err != nil {
			return nil, fmt.Errorf("%w: %T: %v", ErrNotAnObject, obj, err)
		}
		return &history.Object{Namespace: u.GetNamespace(), Name: u.GetName(), UID: string(u.GetUID()),
			ResourceVersion: u.GetResourceVersion(), Labels: u.GetLabels(), Annotations: u.GetAnnotations(), Raw: raw}, nil
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, fmt.Errorf("%w: %T: %v", ErrNotAnObject, obj, err)
	}
	o, _, _, err := history.ParseObject(raw)
	if err != nil {
		return nil, fmt.Errorf("%w: %T: %v", ErrNotAnObject, obj, err)
	}
	return o, nil
}
