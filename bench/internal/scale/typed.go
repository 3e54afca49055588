package scale

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/lwreplay/lwreplay/history"
)

// typed is what the benchmarks know of a resource's Go types.
type typed struct {
	// object is an empty object, for an informer.
	object runtime.Object
	// watch opens a typed watch of every namespace.
	watch func(ctx context.Context, cs kubernetes.Interface, o metav1.ListOptions) (watch.Interface, error)
}

// typedResources are the resources the benchmarks decode as typed
// objects: those `lwreplay synth` generates.
var typedResources = map[string]typed{
	"configmaps": {&corev1.ConfigMap{}, func(ctx context.Context, cs kubernetes.Interface, o metav1.ListOptions) (watch.Interface, error) {
		return cs.CoreV1().ConfigMaps("").Watch(ctx, o)
	}},
	"pods": {&corev1.Pod{}, func(ctx context.Context, cs kubernetes.Interface, o metav1.ListOptions) (watch.Interface, error) {
		return cs.CoreV1().Pods("").Watch(ctx, o)
	}},
}

// typedOf returns the Go types of lg's resource.
func typedOf(r history.Resource) (typed, error) {
	t, ok := typedResources[r.Resource]
	if !ok || r.Group != "" || r.Version != "v1" {
		return typed{}, fmt.Errorf("%w: resource %s: not one the benchmarks decode (configmaps.v1, pods.v1)", ErrMeasure, r)
	}
	return t, nil
}

// decodeList decodes a LIST body as client-go's typed clients do, into a
// *corev1.PodList or *corev1.ConfigMapList, and returns the number of items.
func decodeList(b []byte) (runtime.Object, int, error) {
	obj, _, err := scheme.Codecs.UniversalDeserializer().Decode(b, nil, nil)
	if err != nil {
		return nil, 0, fmt.Errorf("%w: decode LIST: %v", ErrMeasure, err)
	}
	switch l := obj.(type) {
	case *corev1.PodList:
		return l, len(l.Items), nil
	case *corev1.ConfigMapList:
		return l, len(l.Items), nil
	}
	return nil, 0, fmt.Errorf("%w: decode LIST: got %T, want a PodList or ConfigMapList", ErrMeasure, obj)
}
