package history

import (
	"encoding/json"
	"fmt"
	"sort"
)

// A custom resource's kind and scope are its CustomResourceDefinition's
// (spec.names.kind, spec.scope): kube-apiserver serves it so whether or
// not it holds objects. A recording of an empty collection shows neither:
// no object carries a namespace. So Build takes them from the CRDs the
// recording holds. A replay reads the CRDs its target writes the same way.

// CRD names the resource of CustomResourceDefinitions.
var CRD = Resource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions", Kind: "CustomResourceDefinition"}

// CRDVersion is one version of a resource a CustomResourceDefinition
// defines, as kube-apiserver serves it and its discovery lists it.
type CRDVersion struct {
	// Resource is the resource: group, version, plural, kind and scope
	// (spec.scope Namespaced, the default, or Cluster).
	Resource Resource
	// Singular, ListKind, ShortNames and Categories are spec.names'.
	Singular, ListKind     string
	ShortNames, Categories []string
	// Served and Storage are the version's served and storage.
	Served, Storage bool
	// Status and Scale say the version has the status and scale
	// subresources (subresources.status, subresources.scale).
	Status, Scale bool
}

// crdJSON is the part of a CustomResourceDefinition CRDVersions reads.
type crdJSON struct {
	Spec struct {
		Group string `json:"group"`
		Scope string `json:"scope"`
		Names struct {
			Plural     string   `json:"plural"`
			Singular   string   `json:"singular"`
			Kind       string   `json:"kind"`
			ListKind   string   `json:"listKind"`
			ShortNames []string `json:"shortNames"`
			Categories []string `json:"categories"`
		} `json:"names"`
		Versions []struct {
			Name         string `json:"name"`
			Served       bool   `json:"served"`
			Storage      bool   `json:"storage"`
			Subresources struct {
				Status *json.RawMessage `json:"status"`
				Scale  *json.RawMessage `json:"scale"`
			} `json:"subresources"`
		} `json:"versions"`
	} `json:"spec"`
}

// CRDVersions returns the versions of the resource a
// CustomResourceDefinition's JSON defines, in its order. It fails when raw
// is no CRD: no group, plural, kind or version.
func CRDVersions(raw []byte) ([]CRDVersion, error) {
	var c crdJSON
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("CustomResourceDefinition: %w", err)
	}
	s, n := c.Spec, c.Spec.Names
	if s.Group == "" || n.Plural == "" || n.Kind == "" || len(s.Versions) == 0 {
		return nil, fmt.Errorf("CustomResourceDefinition: spec names no group, plural, kind or version (group %q, plural %q, kind %q, %d versions)",
			s.Group, n.Plural, n.Kind, len(s.Versions))
	}
	out := make([]CRDVersion, 0, len(s.Versions))
	for _, v := range s.Versions {
		out = append(out, CRDVersion{
			Resource: Resource{Group: s.Group, Version: v.Name, Resource: n.Plural, Kind: n.Kind, Namespaced: s.Scope != "Cluster"},
			Singular: n.Singular, ListKind: n.ListKind, ShortNames: n.ShortNames, Categories: n.Categories,
			Served: v.Served, Storage: v.Storage,
			Status: v.Subresources.Status != nil, Scale: v.Subresources.Scale != nil,
		})
	}
	return out, nil
}

// CRDs returns the versions of the resources the CustomResourceDefinitions
// h records define (Log.CRDs of its log of them); none when it has none.
func (h *History) CRDs() []CRDVersion {
	l, ok := h.Log(CRD)
	if !ok {
		return nil
	}
	return l.CRDs()
}

// CRDs returns the versions of the resources the CustomResourceDefinitions
// of l, a log of them, define. It takes every CRD l holds, in its initial
// state or an event. Each is in its newest version (a deleted one in its
// last), by CRD name. Objects that are no CRD are left out.
func (l *Log) CRDs() []CRDVersion {
	newest := map[string]*Object{}
	for _, o := range l.Initial {
		newest[o.Key()] = o
	}
	for _, e := range l.Events {
		newest[e.Object.Key()] = e.Object
	}
	names := make([]string, 0, len(newest))
	for k := range newest {
		names = append(names, k)
	}
	sort.Strings(names)
	var out []CRDVersion
	for _, k := range names {
		vs, err := CRDVersions(newest[k].Raw)
		if err != nil {
			continue
		}
		out = append(out, vs...)
	}
	return out
}

// FindCRD returns the version of crds that defines r (matched on group,
// version and resource).
func FindCRD(crds []CRDVersion, r Resource) (CRDVersion, bool) {
	for _, c := range crds {
		if c.Resource.ID() == r.ID() {
			return c, true
		}
	}
	return CRDVersion{}, false
}
