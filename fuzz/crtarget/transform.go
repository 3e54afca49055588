package crtarget

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	toolscache "k8s.io/client-go/tools/cache"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"
)

// A manager's cache stores each object as its transform leaves it. That
// transform is one of:
//   - cache.Options.DefaultTransform (cache.TransformStripManagedFields, in
//     many operators);
//   - a ByObject kind's Transform;
//   - a namespace's (DefaultNamespaces, ByObject.Namespaces).
//
// The run compares the store with the truth's objects passed through the
// same transform (Probe.SetStoreTransform). It picks it per object as
// controller-runtime's cache picks it (pkg/cache/cache.go, defaultOpts): a
// namespace's own setting, then the kind's, then DefaultNamespaces', then
// the default. Every object of a kind goes through the transform of its
// namespace. So one comparison serves any transform, not only those that
// drop fields.

// storeTransform returns the transform opts' cache applies to objects of
// gvk, picked per object by its namespace; nil when no transform applies
// to any.
func storeTransform(opts cache.Options, gvk schema.GroupVersionKind) func(any) (any, error) {
	if !hasTransform(opts) {
		return nil
	}
	byObject, ok := byObjectOf(opts, gvk)
	return func(obj any) (any, error) {
		ns := ""
		if m, err := meta.Accessor(obj); err == nil {
			ns = m.GetNamespace()
		}
		fn := transformIn(opts, byObject, ok, ns)
		if fn == nil {
			return obj, nil
		}
		return fn(obj)
	}
}

// hasTransform reports whether opts set a transform anywhere.
func hasTransform(opts cache.Options) bool {
	if opts.DefaultTransform != nil {
		return true
	}
	for _, c := range opts.DefaultNamespaces {
		if c.Transform != nil {
			return true
		}
	}
	for _, b := range opts.ByObject {
		if b.Transform != nil {
			return true
		}
		for _, c := range b.Namespaces {
			if c.Transform != nil {
				return true
			}
		}
	}
	return false
}

// byObjectOf returns opts' ByObject setting of gvk, if any.
func byObjectOf(opts cache.Options, gvk schema.GroupVersionKind) (cache.ByObject, bool) {
	s := opts.Scheme
	for obj, b := range opts.ByObject {
		if g, err := apiutil.GVKForObject(obj, s); err == nil && g == gvk {
			return b, true
		}
	}
	return cache.ByObject{}, false
}

// transformIn returns the transform of an object in namespace ns (empty: a
// cluster-scoped object), its kind set in byObject when ok. It resolves it
// as controller-runtime's defaultOpts does.
func transformIn(opts cache.Options, byObject cache.ByObject, ok bool, ns string) toolscache.TransformFunc {
	first := func(fns ...toolscache.TransformFunc) toolscache.TransformFunc {
		for _, fn := range fns {
			if fn != nil {
				return fn
			}
		}
		return nil
	}
	if !ok {
		if ns != "" {
			if c, found := namespaceConfig(opts.DefaultNamespaces, ns); found {
				return first(c.Transform, opts.DefaultTransform)
			}
		}
		return opts.DefaultTransform
	}
	namespaces := byObject.Namespaces
	if namespaces == nil {
		namespaces = opts.DefaultNamespaces
	}
	if ns != "" && len(namespaces) > 0 {
		c, key, found := namespaceConfigKey(namespaces, ns)
		if found {
			var dns toolscache.TransformFunc
			if d, has := opts.DefaultNamespaces[key]; has {
				dns = d.Transform
			}
			return first(c.Transform, byObject.Transform, dns, opts.DefaultTransform)
		}
	}
	return first(byObject.Transform, opts.DefaultTransform)
}

// namespaceConfig returns the config of namespace ns in namespaces: its
// own, else that of all other namespaces (metav1.NamespaceAll).
func namespaceConfig(namespaces map[string]cache.Config, ns string) (cache.Config, bool) {
	c, _, ok := namespaceConfigKey(namespaces, ns)
	return c, ok
}

// namespaceConfigKey is namespaceConfig, with the key it was found under.
func namespaceConfigKey(namespaces map[string]cache.Config, ns string) (cache.Config, string, bool) {
	if c, ok := namespaces[ns]; ok {
		return c, ns, true
	}
	if c, ok := namespaces[metav1.NamespaceAll]; ok {
		return c, metav1.NamespaceAll, true
	}
	return cache.Config{}, "", false
}
