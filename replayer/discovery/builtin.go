package discovery

import (
	"cmp"
	"regexp"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/version"

	"github.com/lwreplay/lwreplay/history"
	builtinkinds "github.com/lwreplay/lwreplay/internal/builtin"
)

// A replay that takes writes serves the built-in resources its history
// does not record from empty. (The replayer makes a resource's log on the
// first request for it.) So its discovery lists them from the start, as
// kube-apiserver does. controller-runtime's RESTMapper reads discovery
// before a controller's informer lists, and finds no kind it does not list.
//
// The built-in resources are derived from client-go's scheme. Of each API
// group, they take its newest generally available version. (kube-apiserver
// 1.37 serves no beta or alpha version by default, and prefers the newest
// GA one: autoscaling/v2, coordination.k8s.io/v1.) Of that version, they
// take the kinds with a <Kind>List, which are resources. Options,
// subresource kinds such as Scale, Binding or Eviction, and the *Review
// kinds have none. CustomResourceDefinitions are added: kube-apiserver
// serves them and client-go's scheme lacks them.
//
// The scheme is internal/builtin's, not client-go's scheme.Scheme: an
// operator's main registers its own kinds into that one (ECK's
// controllerscheme.SetupScheme does). Its kinds are no built-in ones, and
// a guessed plural ("elasticsearchs") would shadow the recorded
// discovery's ("elasticsearches").

// clusterScoped are the built-in kinds kube-apiserver 1.37 serves
// cluster-scoped (client-go's scheme does not say; its discovery does).
var clusterScoped = map[string]bool{
	"Namespace": true, "Node": true, "PersistentVolume": true, "ComponentStatus": true,
	"ClusterRole": true, "ClusterRoleBinding": true, "StorageClass": true, "CSIDriver": true, "CSINode": true,
	"VolumeAttachment": true, "VolumeAttributesClass": true, "PriorityClass": true, "RuntimeClass": true,
	"IngressClass": true, "IPAddress": true, "ServiceCIDR": true, "CertificateSigningRequest": true, "ClusterTrustBundle": true,
	"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true,
	"MutatingAdmissionPolicy": true, "MutatingAdmissionPolicyBinding": true,
	"FlowSchema": true, "PriorityLevelConfiguration": true, "DeviceClass": true, "DeviceTaintRule": true, "ResourceSlice": true,
	"CustomResourceDefinition": true, "APIService": true, "StorageVersionMigration": true,
}

// gaVersion matches a generally available version ("v1", "v2").
var gaVersion = regexp.MustCompile(`^v[0-9]+$`)

// builtin is the built-in resources, derived once: the core group first,
// then the groups by name, each group version's resources by name.
var builtin = sync.OnceValue(deriveBuiltin)

// deriveBuiltin derives the built-in resources from internal/builtin's scheme.
func deriveBuiltin() []history.Resource {
	s := builtinkinds.Scheme
	out := []history.Resource{{
		Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions",
		Kind: "CustomResourceDefinition", Namespaced: false,
	}}
	seen := map[string]bool{}
	for _, gv := range s.PreferredVersionAllGroups() {
		if seen[gv.Group] {
			continue
		}
		seen[gv.Group] = true
		v, ok := preferredGA(s, gv.Group)
		if !ok {
			continue
		}
		out = append(out, resourcesOfVersion(s, schema.GroupVersion{Group: gv.Group, Version: v})...)
	}
	slices.SortFunc(out, func(a, b history.Resource) int {
		return cmp.Or(cmp.Compare(a.Group, b.Group), cmp.Compare(a.Resource, b.Resource))
	})
	return out
}

// preferredGA returns the newest generally available version the scheme
// s has of group: the one kube-apiserver 1.37 prefers.
func preferredGA(s *runtime.Scheme, group string) (string, bool) {
	best := ""
	for _, gv := range s.PrioritizedVersionsForGroup(group) {
		if gaVersion.MatchString(gv.Version) && (best == "" || version.CompareKubeAwareVersionStrings(gv.Version, best) > 0) {
			best = gv.Version
		}
	}
	return best, best != ""
}

// resourcesOfVersion returns the resources of gv in the scheme s: its
// versioned kinds with a <Kind>List.
func resourcesOfVersion(s *runtime.Scheme, gv schema.GroupVersion) []history.Resource {
	kinds := s.KnownTypes(gv)
	var out []history.Resource
	for kind := range kinds {
		if _, ok := kinds[kind+"List"]; !ok {
			continue
		}
		obj, err := s.New(gv.WithKind(kind))
		if err != nil {
			continue
		}
		if unversioned, _ := s.IsUnversioned(obj); unversioned { // APIGroup, registered in core v1
			continue
		}
		plural, _ := meta.UnsafeGuessKindToResource(gv.WithKind(kind))
		out = append(out, history.Resource{
			Group: gv.Group, Version: gv.Version, Resource: plural.Resource,
			Kind: kind, Namespaced: !clusterScoped[kind],
		})
	}
	return out
}

// Builtin returns the built-in resources kube-apiserver 1.37 serves by
// default, as client-go's scheme has them (see above). Each has its kind
// and scope. The core group comes first, then by group and resource name. A
// replay that takes writes serves each from empty when its history does
// not record it, and its discovery lists them. The slice is the caller's.
func Builtin() []history.Resource {
	return slices.Clone(builtin())
}

// BuiltinResource returns the built-in resource of group, version and
// resource name ("", "v1", "secrets"), with its kind and scope. Its ok is
// false when it is none of Builtin's.
func BuiltinResource(group, version, resource string) (res history.Resource, ok bool) {
	id := history.Resource{Group: group, Version: version, Resource: resource}
	i := slices.IndexFunc(builtin(), func(r history.Resource) bool { return r.ID() == id })
	if i < 0 {
		return history.Resource{}, false
	}
	return builtin()[i], true
}
