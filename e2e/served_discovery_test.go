package e2e

import (
	"slices"
	"strings"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/discovery"
)

// servedDiscovery returns what the replayer serves for a recorded discovery answer doc (decoded JSON) of a
// history h, replayed taking writes. It is the recorded answer with some resources taken out. Out go those h
// has no LIST or WATCH traffic of, unless built-in (discovery.Builtin, served from empty) or a served
// version of a CRD h holds. The verbs of the rest are narrowed to get, list, watch and the writes (create,
// update, patch, delete, deletecollection). Subresources but status and a namespace's finalize are dropped;
// status keeps get, patch and update, finalize update. Versions and groups left empty are dropped. Other
// answers are served as recorded.
func servedDiscovery(doc map[string]any, h *history.History) map[string]any {
	crds := h.CRDs()
	has := func(group, version, resource string) bool {
		_, ok := h.Log(history.Resource{Group: group, Version: version, Resource: resource})
		_, builtin := discovery.BuiltinResource(group, version, resource)
		c, crd := history.FindCRD(crds, history.Resource{Group: group, Version: version, Resource: resource})
		return ok || builtin || (crd && c.Served)
	}
	switch doc["kind"] {
	case "APIGroupDiscoveryList":
		var groups []any
		for _, g := range items(doc["items"]) {
			md, _ := g["metadata"].(map[string]any)
			name, _ := md["name"].(string)
			var versions []any
			for _, v := range items(g["versions"]) {
				var resources []any
				for _, r := range items(v["resources"]) {
					version, _ := v["version"].(string)
					resource, _ := r["resource"].(string)
					if !has(name, version, resource) {
						continue
					}
					r["verbs"] = narrow(r["verbs"], servedVerbs...)
					var subs []any
					for _, s := range items(r["subresources"]) {
						if s["subresource"] == "status" || (name == "" && resource == "namespaces" && s["subresource"] == "finalize") {
							s["verbs"] = narrow(s["verbs"], "get", "patch", "update")
							subs = append(subs, s)
						}
					}
					setOrDelete(r, "subresources", subs)
					resources = append(resources, r)
				}
				if len(resources) > 0 {
					v["resources"] = resources
					versions = append(versions, v)
				}
			}
			if len(versions) > 0 {
				g["versions"] = versions
				groups = append(groups, g)
			}
		}
		if groups == nil {
			groups = []any{}
		}
		doc["items"] = groups
	case "APIResourceList":
		gv, _ := doc["groupVersion"].(string)
		group, version, ok := strings.Cut(gv, "/")
		if !ok {
			group, version = "", group
		}
		resources := []any{}
		for _, r := range items(doc["resources"]) {
			name, _ := r["name"].(string)
			parent, sub, isSub := strings.Cut(name, "/")
			if !has(group, version, parent) || (isSub && sub != "status" && (group != "" || parent != "namespaces" || sub != "finalize")) {
				continue
			}
			if isSub {
				r["verbs"] = narrow(r["verbs"], "get", "patch", "update")
			} else {
				r["verbs"] = narrow(r["verbs"], servedVerbs...)
			}
			resources = append(resources, r)
		}
		doc["resources"] = resources
	}
	return doc
}

// servedVerbs are the verbs a replay that takes writes answers.
var servedVerbs = []string{"create", "delete", "deletecollection", "get", "list", "patch", "update", "watch"}

func items(v any) []map[string]any {
	var out []map[string]any
	l, _ := v.([]any)
	for _, e := range l {
		if m, ok := e.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func narrow(verbs any, keep ...string) []any {
	out := []any{}
	l, _ := verbs.([]any)
	for _, v := range l {
		if s, ok := v.(string); ok && slices.Contains(keep, s) {
			out = append(out, s)
		}
	}
	return out
}

func setOrDelete(m map[string]any, key string, v []any) {
	if len(v) == 0 {
		delete(m, key)
		return
	}
	m[key] = v
}
