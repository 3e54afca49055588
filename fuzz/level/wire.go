package level

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/history"
)

// wireListWatch returns client-go's own ListWatch of res through cfg: the
// dynamic client for unstructured objects, a REST client with client-go's
// scheme for typed ones.
func wireListWatch(cfg *rest.Config, res history.Resource, example runtime.Object) (*cache.ListWatch, error) {
	gvr := schema.GroupVersionResource{Group: res.Group, Version: res.Version, Resource: res.Resource}
	if _, ok := example.(*unstructured.Unstructured); ok {
		dc, err := dynamic.NewForConfig(cfg)
		if err != nil {
			return nil, fmt.Errorf("%w: dynamic client: %v", ErrSetup, err)
		}
		ri := dc.Resource(gvr)
		return &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return ri.List(ctx, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				return ri.Watch(ctx, o)
			},
		}, nil
	}
	if _, _, err := scheme.Scheme.ObjectKinds(example); err != nil {
		return nil, fmt.Errorf("%w: %T is not in client-go's scheme: %v", ErrSetup, example, err)
	}
	c := rest.CopyConfig(cfg)
	c.GroupVersion = &schema.GroupVersion{Group: res.Group, Version: res.Version}
	c.APIPath = "/apis"
	if res.Group == "" {
		c.APIPath = "/api"
	}
	c.NegotiatedSerializer = scheme.Codecs.WithoutConversion()
	rc, err := rest.RESTClientFor(c)
	if err != nil {
		return nil, fmt.Errorf("%w: REST client: %v", ErrSetup, err)
	}
	return cache.NewListWatchFromClient(rc, res.Resource, metav1.NamespaceAll, fields.Everything()), nil
}
