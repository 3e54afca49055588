package history

import (
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Resource identifies one API resource, as its REST path does.
type Resource struct {
	// Group is the API group; "" for the core group.
	Group string
	// Version is the API version, e.g. "v1".
	Version string
	// Resource is the plural resource name, e.g. "configmaps".
	Resource string
	// Kind is the object kind, e.g. "ConfigMap"; "" until learned.
	Kind string
	// Namespaced says whether objects live in namespaces.
	Namespaced bool
}

// GroupVersion returns "v1" for the core group and "group/version" otherwise.
func (r Resource) GroupVersion() string {
	if r.Group == "" {
		return r.Version
	}
	return r.Group + "/" + r.Version
}

// ID returns the resource's identity without Kind and scope, used as a map key.
func (r Resource) ID() Resource {
	return Resource{Group: r.Group, Version: r.Version, Resource: r.Resource}
}

// String returns "configmaps.v1" or "deployments.v1.apps", kubectl's fully
// qualified form.
func (r Resource) String() string {
	if r.Group == "" {
		return r.Resource + "." + r.Version
	}
	return r.Resource + "." + r.Version + "." + r.Group
}

// Name returns the resource as kubectl takes it and reports show it:
// "configmaps", "deployments.apps".
func (r Resource) Name() string {
	if r.Group == "" {
		return r.Resource
	}
	return r.Resource + "." + r.Group
}

// Prefix returns the REST path prefix of the resource's group version:
// "/api/v1" or "/apis/<group>/<version>".
func (r Resource) Prefix() string {
	if r.Group == "" {
		return "/api/" + r.Version
	}
	return "/apis/" + r.Group + "/" + r.Version
}

// CollectionPath returns the REST path of the resource's collection in
// namespace ns ("" for all namespaces or a cluster-scoped resource).
func (r Resource) CollectionPath(ns string) string {
	if ns != "" && r.Namespaced {
		return r.Prefix() + "/namespaces/" + ns + "/" + r.Resource
	}
	return r.Prefix() + "/" + r.Resource
}

// RequestInfo is a parsed list or watch request, as kube-apiserver reads it.
type RequestInfo struct {
	// Resource is the resource addressed (Kind and scope unknown).
	Resource Resource
	// Namespace is the namespace of a namespaced path; "" for all.
	Namespace string
	// Name is the object name of a single-object path.
	Name string
	// Subresource is the subresource of a single-object path, e.g. "status".
	Subresource string
	// Watch is true for watch=true / watch=1.
	Watch bool
	// ResourceVersion is the resourceVersion parameter.
	ResourceVersion string
	// ResourceVersionMatch is "", "NotOlderThan" or "Exact".
	ResourceVersionMatch string
	// Limit is the page size; 0 for none.
	Limit int64
	// Continue is the continue token.
	Continue string
	// LabelSelector and FieldSelector are the selectors as sent.
	LabelSelector, FieldSelector string
	// TimeoutSeconds is the watch timeout; 0 for none.
	TimeoutSeconds int64
	// AllowWatchBookmarks is the allowWatchBookmarks parameter.
	AllowWatchBookmarks bool
	// SendInitialEvents is nil when absent, else its value.
	SendInitialEvents *bool
}

// IsWatchList reports whether the request asks for a WatchList stream.
func (q RequestInfo) IsWatchList() bool {
	return q.Watch && q.SendInitialEvents != nil && *q.SendInitialEvents
}

// namespaceSubresource says rest (the path after the group version) is
// a core namespace's subresource, /api/v1/namespaces/NAME/status or
// /finalize, not a namespaced resource's collection.
func namespaceSubresource(r Resource, rest []string) bool {
	return r.Group == "" && len(rest) == 3 && (rest[2] == "status" || rest[2] == "finalize")
}

// splitPath appends the "/"-separated segments of p to segs, as
// strings.Split does.
func splitPath(p string, segs []string) []string {
	for {
		seg, rest, found := strings.Cut(p, "/")
		segs = append(segs, seg)
		if !found {
			return segs
		}
		p = rest
	}
}

// ParseRequestInfo parses a resource request path and query. ok is false for
// paths that address no resource (discovery, /version, /healthz, ...).
func ParseRequestInfo(u *url.URL) (q RequestInfo, ok bool, err error) {
	var buf [8]string // a resource path's segments, on the stack
	segs := splitPath(strings.Trim(u.Path, "/"), buf[:0])
	var rest []string
	switch {
	case len(segs) >= 3 && segs[0] == "api":
		q.Resource = Resource{Version: segs[1]}
		rest = segs[2:]
	case len(segs) >= 4 && segs[0] == "apis":
		q.Resource = Resource{Group: segs[1], Version: segs[2]}
		rest = segs[3:]
	default:
		return q, false, nil
	}
	if rest[0] == "watch" { // legacy /watch/ prefix
		q.Watch = true
		rest = rest[1:]
		if len(rest) == 0 {
			return q, false, nil
		}
	}
	if rest[0] == "namespaces" && len(rest) >= 3 && !namespaceSubresource(q.Resource, rest) {
		q.Namespace = rest[1]
		rest = rest[2:]
	}
	q.Resource.Resource = rest[0]
	if len(rest) >= 2 {
		q.Name = rest[1]
	}
	if len(rest) >= 3 {
		q.Subresource = strings.Join(rest[2:], "/")
	}
	if u.RawQuery == "" {
		return q, true, nil
	}
	v := u.Query()
	if w := v.Get("watch"); w != "" {
		b, perr := strconv.ParseBool(w)
		if perr != nil {
			return q, true, fmt.Errorf("watch=%q: not a boolean", w)
		}
		q.Watch = q.Watch || b
	}
	q.ResourceVersion = v.Get("resourceVersion")
	q.ResourceVersionMatch = v.Get("resourceVersionMatch")
	q.Continue = v.Get("continue")
	q.LabelSelector = v.Get("labelSelector")
	q.FieldSelector = v.Get("fieldSelector")
	if s := v.Get("limit"); s != "" {
		if q.Limit, err = strconv.ParseInt(s, 10, 64); err != nil || q.Limit < 0 {
			return q, true, fmt.Errorf("limit=%q: not a non-negative integer", s)
		}
	}
	if s := v.Get("timeoutSeconds"); s != "" {
		if q.TimeoutSeconds, err = strconv.ParseInt(s, 10, 64); err != nil || q.TimeoutSeconds < 0 {
			return q, true, fmt.Errorf("timeoutSeconds=%q: not a non-negative integer", s)
		}
	}
	if s := v.Get("allowWatchBookmarks"); s != "" {
		if q.AllowWatchBookmarks, err = strconv.ParseBool(s); err != nil {
			return q, true, fmt.Errorf("allowWatchBookmarks=%q: not a boolean", s)
		}
	}
	if s := v.Get("sendInitialEvents"); s != "" {
		b, perr := strconv.ParseBool(s)
		if perr != nil {
			return q, true, fmt.Errorf("sendInitialEvents=%q: not a boolean", s)
		}
		q.SendInitialEvents = &b
	}
	return q, true, nil
}

type apiResourceList struct {
	Resources []struct {
		Name       string `json:"name"`
		Kind       string `json:"kind"`
		Namespaced bool   `json:"namespaced"`
	} `json:"resources"`
}

// apiGroupDiscoveryList is the part of an aggregated discovery answer
// that names a resource's kind and scope. The answer is an
// apidiscovery.k8s.io/v2 APIGroupDiscoveryList, what client-go asks /api
// and /apis for first.
type apiGroupDiscoveryList struct {
	Kind  string `json:"kind"`
	Items []struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
		Versions []struct {
			Version   string `json:"version"`
			Resources []struct {
				Resource     string `json:"resource"`
				ResponseKind *struct {
					Kind string `json:"kind"`
				} `json:"responseKind"`
				Scope string `json:"scope"`
			} `json:"resources"`
		} `json:"versions"`
	} `json:"items"`
}

// applyDiscovery takes Kind and scope from the recorded discovery answers
// that list l's resource. That is its group version's (/api/v1,
// /apis/<group>/<version>), or the aggregated answer of /api or /apis.
func (h *History) applyDiscovery(l *Log) {
	var rl apiResourceList
	if json.Unmarshal(h.Discovery[l.Resource.Prefix()], &rl) == nil {
		for _, r := range rl.Resources {
			if r.Name == l.Resource.Resource && r.Kind != "" {
				l.Resource.Kind, l.Resource.Namespaced = r.Kind, r.Namespaced
				return
			}
		}
	}
	path := "/apis"
	if l.Resource.Group == "" {
		path = "/api"
	}
	var agg apiGroupDiscoveryList
	if json.Unmarshal(h.Discovery[path], &agg) != nil || agg.Kind != "APIGroupDiscoveryList" {
		return
	}
	for _, g := range agg.Items {
		if g.Metadata.Name != l.Resource.Group {
			continue
		}
		for _, v := range g.Versions {
			if v.Version != l.Resource.Version {
				continue
			}
			for _, r := range v.Resources {
				if r.Resource == l.Resource.Resource && r.ResponseKind != nil && r.ResponseKind.Kind != "" {
					l.Resource.Kind, l.Resource.Namespaced = r.ResponseKind.Kind, r.Scope == "Namespaced"
					return
				}
			}
		}
	}
}

// applyCRD takes Kind and scope from the CustomResourceDefinition of l's
// resource among crds. It wins over what discovery or the traffic
// showed: kube-apiserver serves a custom resource as its CRD says.
func applyCRD(l *Log, crds []CRDVersion) {
	if c, ok := FindCRD(crds, l.Resource); ok {
		// a namespaced object or path recorded stays so: no server answered it otherwise
		l.Resource.Kind, l.Resource.Namespaced = c.Resource.Kind, c.Resource.Namespaced || l.Resource.Namespaced
	}
}

// WithResource returns a copy of h whose log of r (matched on group,
// version and resource) has r's Kind and scope. That is what a replay
// learned of a resource its recording did not show: a kind from its CRD,
// a built-in one's from client-go's scheme. The copy's logs share
// everything else with h's, the states they computed included; h is not
// changed. It fails when h has no log of r, and when r is cluster-scoped
// but the log holds namespaced objects (ErrRewrite).
func WithResource(h *History, r Resource) (*History, error) {
	i := h.LogIndex(r)
	if i < 0 {
		return nil, fmt.Errorf("%w: no log of %s", ErrRewrite, r)
	}
	old := h.Logs[i]
	if old.Resource.Namespaced && !r.Namespaced {
		return nil, fmt.Errorf("%w: %s holds namespaced objects: it cannot be cluster-scoped", ErrRewrite, r)
	}
	nl := *old
	nl.Resource = r
	out := *h
	out.Logs = slices.Clone(h.Logs)
	out.Logs[i] = &nl
	return &out, nil
}
