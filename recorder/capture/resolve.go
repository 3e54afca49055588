package capture

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/restmapper"
)

// Target is one resource to record, as discovery names it.
type Target struct {
	// GVR is the resource's group, version and plural name.
	GVR schema.GroupVersionResource
	// Kind is the kind of its objects, e.g. "Deployment".
	Kind string
	// Namespaced says whether its objects live in namespaces.
	Namespaced bool
}

// String renders "pods.v1" for the core group and
// "deployments.v1.apps" otherwise, as kubectl accepts it.
func (t Target) String() string {
	if t.GVR.Group == "" {
		return t.GVR.Resource + "." + t.GVR.Version
	}
	return t.GVR.Resource + "." + t.GVR.Version + "." + t.GVR.Group
}

// Resolve turns resource arguments as kubectl takes them into targets,
// through dc's discovery answers. It takes plural or singular names
// ("pods", "pod"), short names ("cm"), group-qualified names
// ("deployments.apps"), fully qualified ones ("deployments.v1.apps") and
// kinds ("Deployment"). Core, grouped and custom resources resolve alike.
// The result keeps the arguments' order, without duplicates. An argument
// that names nothing is an ErrUnknownResource. A resource that cannot be
// listed and watched is an ErrNotWatchable. Failing discovery is an
// ErrDiscovery. ctx is checked before each step (client-go's discovery
// calls that take a context are v0.37's).
func Resolve(ctx context.Context, dc discovery.CachedDiscoveryInterface, args []string) ([]Target, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrDiscovery, err)
	}
	if _, _, err := dc.ServerGroupsAndResources(); err != nil && !discovery.IsGroupDiscoveryFailedError(err) {
		return nil, fmt.Errorf("%w: %v", ErrDiscovery, err)
	}
	mapper := restmapper.NewShortcutExpander(restmapper.NewDeferredDiscoveryRESTMapper(dc), dc, nil)
	var out []Target
	for _, arg := range args {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrDiscovery, err)
		}
		arg = strings.TrimSpace(arg)
		if arg == "" {
			return nil, fmt.Errorf("%w: empty resource name", ErrUnknownResource)
		}
		m, ok := mappingFor(mapper, arg)
		if !ok {
			return nil, fmt.Errorf("%w: %q: the server has no resource or kind of that name", ErrUnknownResource, arg)
		}
		t := Target{GVR: m.Resource, Kind: m.GroupVersionKind.Kind, Namespaced: m.Scope.Name() == meta.RESTScopeNameNamespace}
		if err := checkVerbs(dc, t); err != nil {
			return nil, fmt.Errorf("%q: %w", arg, err)
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// mappingFor resolves one argument as kubectl's resource builder does. It
// tries it first as a resource (fully qualified, then group-qualified or
// bare), then as a kind. ok is false when arg names nothing.
func mappingFor(mapper meta.RESTMapper, arg string) (m *meta.RESTMapping, ok bool) {
	full, gr := schema.ParseResourceArg(arg)
	var gvk schema.GroupVersionKind
	if full != nil {
		gvk, _ = mapper.KindFor(*full)
	}
	if gvk.Empty() {
		gvk, _ = mapper.KindFor(gr.WithVersion(""))
	}
	if !gvk.Empty() {
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		return m, err == nil
	}
	fullKind, gk := schema.ParseKindArg(arg)
	if fullKind != nil {
		if m, err := mapper.RESTMapping(fullKind.GroupKind(), fullKind.Version); err == nil {
			return m, true
		}
	}
	m, err := mapper.RESTMapping(gk)
	return m, err == nil
}

// checkVerbs makes sure t can be listed and watched, when discovery says
// what verbs it has.
func checkVerbs(dc discovery.CachedDiscoveryInterface, t Target) error {
	rl, err := dc.ServerResourcesForGroupVersion(t.GVR.GroupVersion().String())
	if err != nil {
		return nil // the mapping came from discovery; no verbs to check
	}
	for _, r := range rl.APIResources {
		if r.Name != t.GVR.Resource || len(r.Verbs) == 0 {
			continue
		}
		if !slices.Contains(r.Verbs, "list") || !slices.Contains(r.Verbs, "watch") {
			return fmt.Errorf("%w: %s has verbs %v", ErrNotWatchable, t, []string(r.Verbs))
		}
	}
	return nil
}
