package writediff

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// typedAPI is what the Typed steps use of a typed client, for objects of
// type T.
type typedAPI[T any] interface {
	Create(ctx context.Context, obj *T, opts metav1.CreateOptions) (*T, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*T, error)
	Update(ctx context.Context, obj *T, opts metav1.UpdateOptions) (*T, error)
	Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*T, error)
	Delete(ctx context.Context, name string, opts metav1.DeleteOptions) error
	DeleteCollection(ctx context.Context, opts metav1.DeleteOptions, listOpts metav1.ListOptions) error
}

// typedDo sends a request through the typed clientset, in protobuf.
func (r *runner) typedDo(ctx context.Context, ns string, s Step, req request) (*unstructured.Unstructured, error) {
	if s.Subresource == "scale" && s.Resource == "deployments" {
		return typedScale(ctx, r.typed.AppsV1().Deployments(ns), s, req)
	}
	if s.Subresource != "" {
		return nil, fmt.Errorf("typed step %s: subresource %q: the typed client sends a deployment's scale only", s.Name, s.Subresource)
	}
	switch s.Resource {
	case "configmaps":
		return typedCall[corev1.ConfigMap](ctx, r.typed.CoreV1().ConfigMaps(ns), s, req)
	case "deployments":
		return typedCall[appsv1.Deployment](ctx, r.typed.AppsV1().Deployments(ns), s, req)
	}
	return nil, fmt.Errorf("typed step %s: resource %q: the typed client serves configmaps and deployments", s.Name, s.Resource)
}

// typedCall sends req through api, converting the object to T and the
// answer back.
func typedCall[T any](ctx context.Context, api typedAPI[T], s Step, req request) (*unstructured.Unstructured, error) {
	var in T
	if req.obj != nil {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(req.obj.Object, &in); err != nil {
			return nil, fmt.Errorf("typed step %s: convert object: %w", s.Name, err)
		}
	}
	var (
		out *T
		err error
	)
	switch s.Verb {
	case Create:
		out, err = api.Create(ctx, &in, req.create)
	case Get:
		out, err = api.Get(ctx, s.Target, metav1.GetOptions{})
	case Update:
		out, err = api.Update(ctx, &in, req.update)
	case Patch, Apply:
		out, err = api.Patch(ctx, s.Target, req.patchType, req.patch, req.patchOpts)
	case DeleteCollection:
		err = api.DeleteCollection(ctx, req.delete, listOptions(s))
	default:
		err = api.Delete(ctx, s.Target, req.delete)
	}
	return typedAnswer(s, out, err)
}

// scaleAPI is what the Typed steps use of a typed client's scale
// subresource.
type scaleAPI interface {
	GetScale(ctx context.Context, name string, opts metav1.GetOptions) (*autoscalingv1.Scale, error)
	UpdateScale(ctx context.Context, name string, scale *autoscalingv1.Scale, opts metav1.UpdateOptions) (*autoscalingv1.Scale, error)
}

// typedScale sends a Get or an Update of s.Target's scale through api, in
// protobuf.
func typedScale(ctx context.Context, api scaleAPI, s Step, req request) (*unstructured.Unstructured, error) {
	var (
		out *autoscalingv1.Scale
		err error
	)
	switch s.Verb {
	case Get:
		out, err = api.GetScale(ctx, s.Target, metav1.GetOptions{})
	case Update:
		var in autoscalingv1.Scale
		if cerr := runtime.DefaultUnstructuredConverter.FromUnstructured(req.obj.Object, &in); cerr != nil {
			return nil, fmt.Errorf("typed step %s: convert scale: %w", s.Name, cerr)
		}
		out, err = api.UpdateScale(ctx, s.Target, &in, req.update)
	default:
		return nil, fmt.Errorf("typed step %s: verb %q: the typed client gets and updates a scale only", s.Name, s.Verb)
	}
	return typedAnswer(s, out, err)
}

// typedAnswer is out, the typed client's answer to step s, as an object
// (nil when the step failed or answered none).
func typedAnswer[T any](s Step, out *T, err error) (*unstructured.Unstructured, error) {
	if err != nil || out == nil {
		return nil, err
	}
	m, cerr := runtime.DefaultUnstructuredConverter.ToUnstructured(out)
	if cerr != nil {
		return nil, fmt.Errorf("typed step %s: convert answer: %w", s.Name, cerr)
	}
	return &unstructured.Unstructured{Object: m}, nil
}
