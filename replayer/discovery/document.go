package discovery

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	cgdiscovery "k8s.io/client-go/discovery"

	"github.com/lwreplay/lwreplay/history"
)

// document is what discovery tells: the API groups with their versions
// (the core group, named "", first) and the resources of each group
// version. It merges the recorded discovery answers, in either form, with
// the resources the replay serves.
type document struct {
	groups    []metav1.APIGroup
	resources map[string]*metav1.APIResourceList // by group version
}

// Kinds of recorded discovery answers.
const (
	kindAggregated   = "APIGroupDiscoveryList"
	kindResourceList = "APIResourceList"
	kindGroupList    = "APIGroupList"
)

type typeMeta struct {
	Kind       string `json:"kind"`
	APIVersion string `json:"apiVersion"`
}

// recordedKind returns the kind and apiVersion of a recorded answer.
func recordedKind(body []byte) typeMeta {
	var tm typeMeta
	_ = json.Unmarshal(body, &tm) // an unreadable body has no kind
	return tm
}

// newDocument builds the discovery document of the recorded answers (by
// path) and the served resources.
func newDocument(recorded map[string][]byte, resources []history.Resource) *document {
	d := &document{resources: map[string]*metav1.APIResourceList{}}
	d.addVersion("", "v1")
	for _, p := range slices.Sorted(maps.Keys(recorded)) { // /api before /apis before /apis/<g>/<v>
		d.addRecorded(recorded[p])
	}
	for _, r := range resources {
		known := builtinNames[schema.GroupResource{Group: r.Group, Resource: r.Resource}]
		d.addResource(r.Group, r.Version, metav1.APIResource{
			Name:         r.Resource,
			SingularName: strings.ToLower(r.Kind),
			Namespaced:   r.Namespaced,
			Kind:         r.Kind,
			Verbs:        slices.Clone(apiserverVerbs), // narrowed to the served ones (servedBy)
			ShortNames:   known.shortNames,
			Categories:   known.categories,
		})
	}
	return d
}

// builtinNames are the short names and categories kube-apiserver 1.37
// reports for its built-in resources. With them, kubectl resolves "cm" or
// "get all" against a history without recorded discovery.
var builtinNames = map[schema.GroupResource]struct{ shortNames, categories []string }{
	{Resource: "componentstatuses"}:                                        {shortNames: []string{"cs"}},
	{Resource: "configmaps"}:                                               {shortNames: []string{"cm"}},
	{Resource: "endpoints"}:                                                {shortNames: []string{"ep"}},
	{Resource: "events"}:                                                   {shortNames: []string{"ev"}},
	{Resource: "limitranges"}:                                              {shortNames: []string{"limits"}},
	{Resource: "namespaces"}:                                               {shortNames: []string{"ns"}},
	{Resource: "nodes"}:                                                    {shortNames: []string{"no"}},
	{Resource: "persistentvolumeclaims"}:                                   {shortNames: []string{"pvc"}},
	{Resource: "persistentvolumes"}:                                        {shortNames: []string{"pv"}},
	{Resource: "pods"}:                                                     {shortNames: []string{"po"}, categories: []string{"all"}},
	{Resource: "replicationcontrollers"}:                                   {shortNames: []string{"rc"}, categories: []string{"all"}},
	{Resource: "resourcequotas"}:                                           {shortNames: []string{"quota"}},
	{Resource: "serviceaccounts"}:                                          {shortNames: []string{"sa"}},
	{Resource: "services"}:                                                 {shortNames: []string{"svc"}, categories: []string{"all"}},
	{Group: "apps", Resource: "daemonsets"}:                                {shortNames: []string{"ds"}, categories: []string{"all"}},
	{Group: "apps", Resource: "deployments"}:                               {shortNames: []string{"deploy"}, categories: []string{"all"}},
	{Group: "apps", Resource: "replicasets"}:                               {shortNames: []string{"rs"}, categories: []string{"all"}},
	{Group: "apps", Resource: "statefulsets"}:                              {shortNames: []string{"sts"}, categories: []string{"all"}},
	{Group: "autoscaling", Resource: "horizontalpodautoscalers"}:           {shortNames: []string{"hpa"}, categories: []string{"all"}},
	{Group: "batch", Resource: "cronjobs"}:                                 {shortNames: []string{"cj"}, categories: []string{"all"}},
	{Group: "batch", Resource: "jobs"}:                                     {categories: []string{"all"}},
	{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}: {shortNames: []string{"csr"}},
	{Group: "events.k8s.io", Resource: "events"}:                           {shortNames: []string{"ev"}},
	{Group: "networking.k8s.io", Resource: "ingresses"}:                    {shortNames: []string{"ing"}},
	{Group: "networking.k8s.io", Resource: "networkpolicies"}:              {shortNames: []string{"netpol"}},
	{Group: "policy", Resource: "poddisruptionbudgets"}:                    {shortNames: []string{"pdb"}},
	{Group: "scheduling.k8s.io", Resource: "priorityclasses"}:              {shortNames: []string{"pc"}},
	{Group: "storage.k8s.io", Resource: "storageclasses"}:                  {shortNames: []string{"sc"}},
	{Group: "apiextensions.k8s.io", Resource: "customresourcedefinitions"}: {shortNames: []string{"crd", "crds"}, categories: []string{"api-extensions"}},
}

// addRecorded merges a recorded discovery answer.
func (d *document) addRecorded(body []byte) {
	switch recordedKind(body).Kind {
	case kindAggregated: // v2 and v2beta1 share their JSON form
		var agg apidiscoveryv2.APIGroupDiscoveryList
		if json.Unmarshal(body, &agg) != nil {
			return
		}
		groups, resources, _ := cgdiscovery.SplitGroupsAndResources(agg)
		for _, g := range groups.Groups {
			d.addGroup(g)
		}
		for gv, rl := range resources {
			for _, r := range rl.APIResources {
				d.addResource(gv.Group, gv.Version, r)
			}
		}
	case kindGroupList:
		var gl metav1.APIGroupList
		if json.Unmarshal(body, &gl) != nil {
			return
		}
		for _, g := range gl.Groups {
			d.addGroup(g)
		}
	case kindResourceList:
		var rl metav1.APIResourceList
		if json.Unmarshal(body, &rl) != nil {
			return
		}
		gv, err := schema.ParseGroupVersion(rl.GroupVersion)
		if err != nil || gv.Version == "" {
			return
		}
		for _, r := range rl.APIResources {
			d.addResource(gv.Group, gv.Version, r)
		}
	}
}

// group returns the group named name, or nil.
func (d *document) group(name string) *metav1.APIGroup {
	for i := range d.groups {
		if d.groups[i].Name == name {
			return &d.groups[i]
		}
	}
	return nil
}

func (d *document) addGroup(g metav1.APIGroup) {
	for _, v := range g.Versions {
		d.addVersion(g.Name, v.Version)
	}
	if mine := d.group(g.Name); mine != nil && g.PreferredVersion.Version != "" {
		mine.PreferredVersion = g.PreferredVersion
	}
}

// addVersion adds a group version; the first version of a group is its
// preferred one until a recorded answer says otherwise.
func (d *document) addVersion(group, version string) {
	gv := schema.GroupVersion{Group: group, Version: version}.String()
	g := d.group(group)
	if g == nil {
		d.groups = append(d.groups, metav1.APIGroup{Name: group})
		g = &d.groups[len(d.groups)-1]
	}
	for _, v := range g.Versions {
		if v.Version == version {
			return
		}
	}
	v := metav1.GroupVersionForDiscovery{GroupVersion: gv, Version: version}
	g.Versions = append(g.Versions, v)
	if g.PreferredVersion.Version == "" {
		g.PreferredVersion = v
	}
	if d.resources[gv] == nil {
		d.resources[gv] = &metav1.APIResourceList{GroupVersion: gv, APIResources: []metav1.APIResource{}}
	}
}

// addResource adds a resource (or subresource, "pods/status") to a group
// version unless it is there already.
func (d *document) addResource(group, version string, r metav1.APIResource) {
	d.addVersion(group, version)
	rl := d.resources[schema.GroupVersion{Group: group, Version: version}.String()]
	for _, have := range rl.APIResources {
		if have.Name == r.Name {
			return
		}
	}
	rl.APIResources = append(rl.APIResources, r)
}

// versions returns the group versions of group, the preferred one first.
func (d *document) versions(group string) []metav1.GroupVersionForDiscovery {
	g := d.group(group)
	if g == nil {
		return nil
	}
	out := []metav1.GroupVersionForDiscovery{g.PreferredVersion}
	for _, v := range g.Versions {
		if v != g.PreferredVersion {
			out = append(out, v)
		}
	}
	return out
}

// aggregated renders the groups named by keep in the aggregated form
// (apidiscovery.k8s.io/v2).
func (d *document) aggregated(keep func(group string) bool) apidiscoveryv2.APIGroupDiscoveryList {
	out := apidiscoveryv2.APIGroupDiscoveryList{
		TypeMeta: metav1.TypeMeta{Kind: kindAggregated, APIVersion: apidiscoveryv2.SchemeGroupVersion.String()},
		Items:    []apidiscoveryv2.APIGroupDiscovery{},
	}
	for _, g := range d.groups {
		if !keep(g.Name) {
			continue
		}
		item := apidiscoveryv2.APIGroupDiscovery{ObjectMeta: metav1.ObjectMeta{Name: g.Name}}
		for _, v := range d.versions(g.Name) {
			item.Versions = append(item.Versions, apidiscoveryv2.APIVersionDiscovery{
				Version:   v.Version,
				Resources: aggregatedResources(schema.GroupVersion{Group: g.Name, Version: v.Version}, d.resources[v.GroupVersion]),
				Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent,
			})
		}
		out.Items = append(out.Items, item)
	}
	return out
}

// aggregatedResources turns a legacy resource list into aggregated
// resources, with "parent/sub" entries as subresources of their parent.
func aggregatedResources(gv schema.GroupVersion, rl *metav1.APIResourceList) []apidiscoveryv2.APIResourceDiscovery {
	var out []apidiscoveryv2.APIResourceDiscovery
	if rl == nil {
		return out
	}
	kindOf := func(r metav1.APIResource) *metav1.GroupVersionKind {
		k := &metav1.GroupVersionKind{Group: gv.Group, Version: gv.Version, Kind: r.Kind}
		if r.Group != "" || r.Version != "" {
			k.Group, k.Version = r.Group, r.Version
		}
		return k
	}
	index := map[string]int{}
	for _, r := range rl.APIResources {
		if strings.Contains(r.Name, "/") {
			continue
		}
		scope := apidiscoveryv2.ScopeCluster
		if r.Namespaced {
			scope = apidiscoveryv2.ScopeNamespace
		}
		index[r.Name] = len(out)
		out = append(out, apidiscoveryv2.APIResourceDiscovery{
			Resource: r.Name, ResponseKind: kindOf(r), Scope: scope, SingularResource: r.SingularName,
			Verbs: r.Verbs, ShortNames: r.ShortNames, Categories: r.Categories,
		})
	}
	for _, r := range rl.APIResources {
		parent, sub, ok := strings.Cut(r.Name, "/")
		if !ok {
			continue
		}
		i, found := index[parent]
		if !found {
			continue
		}
		out[i].Subresources = append(out[i].Subresources, apidiscoveryv2.APISubresourceDiscovery{
			Subresource: sub, ResponseKind: kindOf(r), Verbs: r.Verbs,
		})
	}
	return out
}
