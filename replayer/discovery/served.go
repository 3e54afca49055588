package discovery

import (
	"encoding/json"
	"slices"
	"strings"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lwreplay/lwreplay/history"
)

// Discovery tells what the replay can answer: the resources it serves.
// Those are the ones its history has recorded LIST or WATCH traffic of. A
// replay that takes writes also serves some from empty (Builtin). Each
// has its status subresource, which a GET answers. The verbs are get,
// list and watch only. A replay that takes writes adds the verbs of the
// writes it answers (writeVerbs).
//
// A resource the recorded discovery lists but the replay does not serve is
// left out. kubectl then says the server does not have that resource
// type. It does not list it in api-resources and fail its LIST. A request
// for it anyway gets a 404 that says so.

// servedSubresources are the subresources the replayer answers (a GET of
// status shows the object, as kube-apiserver's does).
var servedSubresources = map[string]bool{"status": true}

// servesSubresource says the replay answers subresource sub of resource
// parent of gv. It answers status. When it takes writes, it answers a
// namespace's finalize too (a PUT: replayer/writes namespace.go). The
// namespace controller of kube-controller-manager writes that.
func (set servedSet) servesSubresource(gv schema.GroupVersion, parent, sub string) bool {
	return servedSubresources[sub] || (set.writes && sub == "finalize" && gv.Group == "" && parent == "namespaces")
}

// servedVerbs are the verbs the replayer answers.
var servedVerbs = []string{"get", "list", "watch"}

// writeVerbs are the verbs a replay that takes writes answers besides, as
// kube-apiserver lists them (patch and update of a status subresource).
var writeVerbs = []string{"create", "delete", "deletecollection", "patch", "update"}

// apiserverVerbs are a built-in resource's verbs in kube-apiserver's
// discovery.
var apiserverVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

// servedSet holds the resources a replay serves, by Resource.ID, and
// whether it takes writes.
type servedSet struct {
	ids    map[history.Resource]bool
	writes bool
}

// has reports whether resource name of gv is served.
func (set servedSet) has(gv schema.GroupVersion, name string) bool {
	return set.ids[history.Resource{Group: gv.Group, Version: gv.Version, Resource: name}]
}

// servedResource returns r as served: ok is false when the replay cannot
// answer it; verbs are narrowed to those the replayer answers.
func servedResource(served servedSet, gv schema.GroupVersion, r metav1.APIResource) (metav1.APIResource, bool) {
	parent, sub, isSub := strings.Cut(r.Name, "/")
	if !served.has(gv, parent) || (isSub && !served.servesSubresource(gv, parent, sub)) {
		return r, false
	}
	r.Verbs = served.narrow(r.Verbs, isSub)
	return r, true
}

// narrow keeps the verbs the replayer answers: get, list and watch for a
// resource, get for a subresource. A replay that takes writes keeps
// writeVerbs too (patch and update for a subresource).
func (set servedSet) narrow(verbs []string, sub bool) []string {
	out := []string{}
	for _, v := range verbs {
		read := slices.Contains(servedVerbs, v) && (!sub || v == "get")
		write := set.writes && slices.Contains(writeVerbs, v) && (!sub || v == "patch" || v == "update")
		if read || write {
			out = append(out, v)
		}
	}
	return out
}

// servedBy returns the part of d the replay can answer (see
// servedResource). A group version left with no resource is dropped, and
// so is a group left with no version. A group whose preferred version is
// dropped prefers its first remaining one.
func (d *document) servedBy(served servedSet) *document {
	out := &document{resources: map[string]*metav1.APIResourceList{}}
	for _, g := range d.groups {
		kept := metav1.APIGroup{Name: g.Name}
		for _, v := range g.Versions {
			rl := d.resources[v.GroupVersion]
			if rl == nil {
				continue
			}
			gv := schema.GroupVersion{Group: g.Name, Version: v.Version}
			list := &metav1.APIResourceList{GroupVersion: rl.GroupVersion, APIResources: []metav1.APIResource{}}
			for _, r := range rl.APIResources {
				if sr, ok := servedResource(served, gv, r); ok {
					list.APIResources = append(list.APIResources, sr)
				}
			}
			if len(list.APIResources) == 0 {
				continue
			}
			kept.Versions = append(kept.Versions, v)
			out.resources[v.GroupVersion] = list
			if v == g.PreferredVersion {
				kept.PreferredVersion = v
			}
		}
		if len(kept.Versions) == 0 {
			continue
		}
		if kept.PreferredVersion.Version == "" {
			kept.PreferredVersion = kept.Versions[0]
		}
		out.groups = append(out.groups, kept)
	}
	return out
}

// servedResourceList returns a recorded APIResourceList as served. The
// resources the replay cannot answer are taken out. Then the ones d serves
// in that group version and the recording lacks are added.
func servedResourceList(served servedSet, d *document, rec metav1.APIResourceList) (metav1.APIResourceList, bool) {
	gv, err := schema.ParseGroupVersion(rec.GroupVersion)
	if err != nil {
		return rec, false
	}
	kept := []metav1.APIResource{}
	for _, r := range rec.APIResources {
		if sr, ok := servedResource(served, gv, r); ok {
			kept = append(kept, sr)
		}
	}
	if gen := d.resources[rec.GroupVersion]; gen != nil {
		for _, r := range gen.APIResources {
			if !slices.ContainsFunc(kept, func(k metav1.APIResource) bool { return k.Name == r.Name }) {
				kept = append(kept, r)
			}
		}
	}
	rec.APIResources = kept
	return rec, len(kept) > 0
}

// servedAggregated returns a recorded aggregated discovery answer as
// served, in the recording's shape. The resources the replay cannot answer
// and their subresources are taken out, and verbs narrowed. Versions and
// groups left empty are dropped. Then what gen has and the recording
// lacks is added. (gen is the answer built from the served discovery
// document.)
func servedAggregated(served servedSet, rec, gen apidiscoveryv2.APIGroupDiscoveryList) apidiscoveryv2.APIGroupDiscoveryList {
	out := rec
	out.Items = []apidiscoveryv2.APIGroupDiscovery{}
	for _, g := range rec.Items {
		var versions []apidiscoveryv2.APIVersionDiscovery
		for _, v := range g.Versions {
			gv := schema.GroupVersion{Group: g.Name, Version: v.Version}
			var resources []apidiscoveryv2.APIResourceDiscovery
			for _, r := range v.Resources {
				if !served.has(gv, r.Resource) {
					continue
				}
				r.Verbs = served.narrow(r.Verbs, false)
				var subs []apidiscoveryv2.APISubresourceDiscovery
				for _, sr := range r.Subresources {
					if served.servesSubresource(gv, r.Resource, sr.Subresource) {
						sr.Verbs = served.narrow(sr.Verbs, true)
						subs = append(subs, sr)
					}
				}
				r.Subresources = subs
				resources = append(resources, r)
			}
			if len(resources) > 0 {
				v.Resources = resources
				versions = append(versions, v)
			}
		}
		if len(versions) > 0 {
			g.Versions = versions
			out.Items = append(out.Items, g)
		}
	}
	return mergeAggregated(out, gen)
}

// mergeAggregated adds to out the groups, versions and resources of gen
// it lacks.
func mergeAggregated(out, gen apidiscoveryv2.APIGroupDiscoveryList) apidiscoveryv2.APIGroupDiscoveryList {
	for _, g := range gen.Items {
		gi := slices.IndexFunc(out.Items, func(o apidiscoveryv2.APIGroupDiscovery) bool { return o.Name == g.Name })
		if gi < 0 {
			out.Items = append(out.Items, g)
			continue
		}
		for _, v := range g.Versions {
			og := &out.Items[gi]
			vi := slices.IndexFunc(og.Versions, func(o apidiscoveryv2.APIVersionDiscovery) bool { return o.Version == v.Version })
			if vi < 0 {
				og.Versions = append(og.Versions, v)
				continue
			}
			ov := &og.Versions[vi]
			for _, r := range v.Resources {
				if !slices.ContainsFunc(ov.Resources, func(o apidiscoveryv2.APIResourceDiscovery) bool { return o.Resource == r.Resource }) {
					ov.Resources = append(ov.Resources, r)
				}
			}
		}
	}
	return out
}

// aggregatedAnswer returns the aggregated discovery answer for /api
// (core) or /apis. It is the recorded one as served, or one built from the
// served discovery document. It is built once per Doc.
func (d *Doc) aggregatedAnswer(path string) ([]byte, error) {
	a := &d.aggregated[0]
	if path != "/api" {
		a = &d.aggregated[1]
	}
	a.once.Do(func() { a.body, a.err = d.buildAggregated(path) })
	return a.body, a.err
}

// buildAggregated builds the aggregated answer of path ("/api" or "/apis").
func (d *Doc) buildAggregated(path string) ([]byte, error) {
	_, shown := d.documents()
	core := path == "/api"
	gen := shown.aggregated(func(g string) bool { return (g == "") == core })
	out := gen
	if rec, ok := d.recorded[path]; ok {
		if tm := recordedKind(rec); tm.Kind == kindAggregated && tm.APIVersion == apidiscoveryv2.SchemeGroupVersion.String() {
			var list apidiscoveryv2.APIGroupDiscoveryList
			if err := json.Unmarshal(rec, &list); err == nil {
				out = servedAggregated(d.served, list, gen)
			}
		}
	}
	return json.Marshal(out)
}
