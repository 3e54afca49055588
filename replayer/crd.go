package replayer

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/weakcache"
	"github.com/lwreplay/lwreplay/replayer/discovery"
	"github.com/lwreplay/lwreplay/replayer/writes"
)

// Every answer names its resource's kind, and every namespaced lookup
// needs its scope. kube-apiserver always knows both. A BOOKMARK carries
// the kind whatever the resource holds. (k8s.io/apiserver
// pkg/storage/cacher/cacher.go sends c.newFunc(), which the watch's
// encoder gives its apiVersion and kind. apiextensions' NewFunc sets a
// custom resource's.)
//
// A recording may show neither: a collection with no object, watched with
// bookmarks that name no kind. (Such bookmarks are written by hand, or by
// a server that leaves it out.) The replay then takes them from what else
// it knows.
// First is the CustomResourceDefinition its history holds: its
// spec.names.kind and spec.scope win. Else, for a built-in resource, it
// is client-go's scheme (discovery.BuiltinResource).
//
// A custom resource whose CRD the served history holds is listed in
// discovery, with the CRD's names, versions and status subresource. That
// holds whether the recording holds traffic of it or not. A write to it
// follows the CRD's subresources.

// resolvedMemo holds each history's resolveKinds, while it lives: nil
// when it is the history itself (a value must not hold its key alive).
var resolvedMemo weakcache.Cache[history.History, *history.History]

// resolveKinds returns h with each log's kind and scope as the replay
// serves them (see above); h itself when it has them all.
func resolveKinds(h *history.History) *history.History {
	out := resolvedMemo.Get(h, func(h *history.History) *history.History {
		out := h
		crds := h.CRDs()
		for _, l := range h.Logs {
			r := l.Resource
			if c, ok := history.FindCRD(crds, r); ok {
				r.Kind, r.Namespaced = c.Resource.Kind, c.Resource.Namespaced || r.Namespaced
			} else if b, ok := discovery.BuiltinResource(r.Group, r.Version, r.Resource); ok && r.Kind == "" {
				r.Kind, r.Namespaced = b.Kind, b.Namespaced || r.Namespaced
			}
			if r == l.Resource {
				continue
			}
			if next, err := history.WithResource(out, r); err == nil {
				out = next
			}
		}
		if out == h {
			return nil
		}
		return out
	})
	if out == nil {
		return h
	}
	return out
}

// crdMemo holds each CRD log's Log.CRDs, while it lives.
var crdMemo weakcache.Cache[history.Log, []history.CRDVersion]

// crdVersion returns the version of a CRD of the served history that
// defines res. The CRD may be in any state of the log, as discovery lists
// it (makeDiscovery).
func (st *store) crdVersion(res history.Resource) (history.CRDVersion, bool) {
	l, ok := st.log(history.CRD)
	if !ok {
		return history.CRDVersion{}, false
	}
	return history.FindCRD(crdMemo.Get(l, (*history.Log).CRDs), res)
}

// kindFor is kindOf(res) for a write: a custom resource has a status
// subresource when its CRD says so (kindOf assumes one).
func (e *engine) kindFor(res history.Resource) writes.Kind {
	k := kindOf(res)
	if k.Builtin {
		k.Graceful = e.opts.graceful && writes.GracefulKind(k)
		k.Defaulter = e.opts.defaulter
		return k
	}
	if c, ok := e.store.crdVersion(res); ok {
		k.Status = c.Status
	}
	return k
}

// crdDiscovery returns the resources the served versions of crds define.
// It also returns, by path (/apis/<group>/<version>), the legacy
// discovery answers that name them as kube-apiserver does. They hold
// plural, singular, kind, scope, short names, categories and the status
// subresource. They are merged into recorded's answers at those paths;
// recorded itself is not changed.
func crdDiscovery(recorded map[string][]byte, crds []history.CRDVersion) ([]history.Resource, map[string][]byte) {
	var resources []history.Resource
	lists := map[string]*metav1.APIResourceList{}
	for _, c := range crds {
		if !c.Served {
			continue
		}
		r := c.Resource
		resources = append(resources, r)
		path := r.Prefix()
		rl := lists[path]
		if rl == nil {
			rl = &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: r.GroupVersion()}
			if rec, ok := recorded[path]; ok && json.Unmarshal(rec, rl) != nil {
				rl = &metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList", APIVersion: "v1"}, GroupVersion: r.GroupVersion()}
			}
			lists[path] = rl
		}
		if slices.ContainsFunc(rl.APIResources, func(a metav1.APIResource) bool { return a.Name == r.Resource }) {
			continue
		}
		singular := c.Singular
		if singular == "" {
			singular = strings.ToLower(r.Kind)
		}
		rl.APIResources = append(rl.APIResources, metav1.APIResource{
			Name: r.Resource, SingularName: singular, Namespaced: r.Namespaced, Kind: r.Kind,
			Verbs:      []string{"delete", "deletecollection", "get", "list", "patch", "create", "update", "watch"},
			ShortNames: c.ShortNames, Categories: c.Categories,
		})
		if c.Status {
			rl.APIResources = append(rl.APIResources, metav1.APIResource{
				Name: r.Resource + "/status", Namespaced: r.Namespaced, Kind: r.Kind, Verbs: []string{"get", "patch", "update"},
			})
		}
	}
	if len(lists) == 0 {
		return nil, recorded
	}
	out := make(map[string][]byte, len(recorded)+len(lists)) // maps.Clone of a nil map is nil
	maps.Copy(out, recorded)
	for path, rl := range lists {
		if b, err := json.Marshal(rl); err == nil {
			out[path] = b
		}
	}
	return resources, out
}
