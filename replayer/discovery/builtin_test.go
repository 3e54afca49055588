package discovery

import (
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

func TestBuiltinResource(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name                     string
		group, version, resource string
		ok                       bool
		kind                     string
		namespaced               bool
	}{
		{name: "builtin - core secrets - pass", version: "v1", resource: "secrets", ok: true, kind: "Secret", namespaced: true},
		{name: "builtin - core namespaces, cluster-scoped - pass", version: "v1", resource: "namespaces", ok: true, kind: "Namespace"},
		{name: "builtin - apps/v1 deployments - pass", group: "apps", version: "v1", resource: "deployments", ok: true, kind: "Deployment", namespaced: true},
		{name: "builtin - coordination leases - pass", group: "coordination.k8s.io", version: "v1", resource: "leases", ok: true, kind: "Lease", namespaced: true},
		{name: "builtin - autoscaling/v2, the preferred version - pass", group: "autoscaling", version: "v2", resource: "horizontalpodautoscalers", ok: true, kind: "HorizontalPodAutoscaler", namespaced: true},
		{name: "builtin - CustomResourceDefinitions - pass", group: "apiextensions.k8s.io", version: "v1", resource: "customresourcedefinitions", ok: true, kind: "CustomResourceDefinition"},
		{name: "builtin - autoscaling/v1, not preferred - fail", group: "autoscaling", version: "v1", resource: "horizontalpodautoscalers"},
		{name: "builtin - a beta version - fail", group: "batch", version: "v1beta1", resource: "cronjobs"},
		{name: "builtin - an alpha-only kind - fail", group: "coordination.k8s.io", version: "v1alpha2", resource: "leasecandidates"},
		{name: "builtin - a create-only review kind - fail", group: "authentication.k8s.io", version: "v1", resource: "tokenreviews"},
		{name: "builtin - a subresource kind - fail", version: "v1", resource: "bindings"},
		{name: "builtin - an unversioned meta kind - fail", version: "v1", resource: "apigroups"},
		{name: "builtin - an options kind - fail", version: "v1", resource: "podlogoptionses"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := BuiltinResource(tt.group, tt.version, tt.resource)
			want := history.Resource{Group: tt.group, Version: tt.version, Resource: tt.resource, Kind: tt.kind, Namespaced: tt.namespaced}
			if ok != tt.ok || (ok && got != want) {
				t.Errorf("got %+v, %v, want %+v, %v", got, ok, want, tt.ok)
			}
		})
	}
	all := Builtin()
	if len(all) == 0 || all[0].Group != "" {
		t.Errorf("got first builtin %+v, want the core group first", all)
	}
	all[0].Resource = "changed"
	if Builtin()[0].Resource == "changed" {
		t.Errorf("got Builtin's slice shared, want the caller's own")
	}
}
