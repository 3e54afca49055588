package openapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// CRD is one served version of a CustomResourceDefinition: what
// kube-apiserver's apiextensions builder
// (k8s.io/apiextensions-apiserver/pkg/controller/openapi/builder) reads
// to publish its OpenAPI.
type CRD struct {
	// Group, Version, Kind, ListKind and Plural name the resource.
	Group, Version, Kind, ListKind, Plural string
	// Namespaced is spec.scope Namespaced.
	Namespaced bool
	// Status and Scale say the version has those subresources.
	Status, Scale bool
	// Schema is the version's openAPIV3Schema (nil: none).
	Schema json.RawMessage
	// PreserveUnknownFields is spec.preserveUnknownFields.
	PreserveUnknownFields bool
}

// crdObject is the part of a CustomResourceDefinition CRDsOf reads.
type crdObject struct {
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Kind     string `json:"kind"`
			ListKind string `json:"listKind"`
			Plural   string `json:"plural"`
		} `json:"names"`
		Scope                 string `json:"scope"`
		PreserveUnknownFields bool   `json:"preserveUnknownFields"`
		Validation            *struct {
			OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
		} `json:"validation"`
		Versions []struct {
			Name   string `json:"name"`
			Served bool   `json:"served"`
			Schema *struct {
				OpenAPIV3Schema json.RawMessage `json:"openAPIV3Schema"`
			} `json:"schema"`
			Subresources *struct {
				Status json.RawMessage `json:"status"`
				Scale  json.RawMessage `json:"scale"`
			} `json:"subresources"`
		} `json:"versions"`
	} `json:"spec"`
}

// CRDsOf returns the served versions of the CustomResourceDefinition raw
// (JSON), in its order.
func CRDsOf(raw []byte) ([]CRD, error) {
	var o crdObject
	if err := json.Unmarshal(raw, &o); err != nil {
		return nil, fmt.Errorf("openapi: a CustomResourceDefinition: %w", err)
	}
	s := o.Spec
	if s.Group == "" || s.Names.Kind == "" || s.Names.Plural == "" {
		return nil, fmt.Errorf("openapi: CustomResourceDefinition of group %q kind %q plural %q: group, kind and plural are required", s.Group, s.Names.Kind, s.Names.Plural)
	}
	var out []CRD
	for _, v := range s.Versions {
		if !v.Served {
			continue
		}
		c := CRD{
			Group: s.Group, Version: v.Name, Kind: s.Names.Kind, ListKind: s.Names.ListKind, Plural: s.Names.Plural,
			Namespaced: s.Scope != "Cluster", PreserveUnknownFields: s.PreserveUnknownFields,
		}
		if c.ListKind == "" {
			c.ListKind = c.Kind + "List"
		}
		if v.Schema != nil && len(v.Schema.OpenAPIV3Schema) > 0 && string(v.Schema.OpenAPIV3Schema) != "null" {
			c.Schema = v.Schema.OpenAPIV3Schema
		} else if s.Validation != nil && len(s.Validation.OpenAPIV3Schema) > 0 {
			c.Schema = s.Validation.OpenAPIV3Schema
		}
		if sr := v.Subresources; sr != nil {
			c.Status = len(sr.Status) > 0 && string(sr.Status) != "null"
			c.Scale = len(sr.Scale) > 0 && string(sr.Scale) != "null"
		}
		out = append(out, c)
	}
	return out, nil
}

// gvPath is the v3 index path of c's group version: apis/<group>/<version>.
func (c CRD) gvPath() string { return "apis/" + c.Group + "/" + c.Version }

// The template's names (see recorded): each is replaced by the CRD's.
const (
	tmplGroup    = "zzz.lwreplay.test"
	tmplVersion  = "v7alpha9"
	tmplNSKind   = "Zzznamespaced"
	tmplNSPlural = "zzznamespaceds"
	tmplCLKind   = "Zzzcluster"
	tmplCLPlural = "zzzclusters"
)

// tmplKind returns the template kind and plural of c's scope.
func (c CRD) tmplKind() (kind, plural string) {
	if c.Namespaced {
		return tmplNSKind, tmplNSPlural
	}
	return tmplCLKind, tmplCLPlural
}

// renamer returns the replacer that turns the template's names into c's,
// as kube-apiserver names them. Model names go by the reversed group
// (gvkToModelName), operation ids and tags by ToValidOperationID.
func (c CRD) renamer() *strings.Replacer {
	kind, plural := c.tmplKind()
	return strings.NewReplacer(
		kind+"List", c.ListKind,
		kind, c.Kind,
		plural, c.Plural,
		modelPrefix(tmplGroup, tmplVersion), modelPrefix(c.Group, c.Version),
		tmplGroup, c.Group,
		operationID(tmplGroup, true), operationID(c.Group, true),
		operationID(tmplGroup, false), operationID(c.Group, false),
		operationID(tmplVersion, true), operationID(c.Version, true),
		tmplVersion, c.Version,
	)
}

// modelPrefix is the prefix of a model name of group version g/v:
// kube-openapi's friendly name, the group's domain reversed.
func modelPrefix(g, v string) string {
	parts := strings.Split(g, ".")
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, ".") + "." + v + "."
}

// operationID is k8s.io/apiserver's ToValidOperationID: letters kept, a
// letter after any other character capitalized.
func operationID(s string, capitalizeFirst bool) string {
	var b strings.Builder
	capitalize := capitalizeFirst
	for i, r := range s {
		if unicode.IsLetter(r) || r == '_' || (i != 0 && unicode.IsDigit(r)) {
			if capitalize {
				b.WriteRune(unicode.ToUpper(r))
				capitalize = false
			} else {
				b.WriteRune(r)
			}
			continue
		}
		capitalize = true
	}
	return b.String()
}

// hasSegment reports whether path p has segment seg.
func hasSegment(p, seg string) bool {
	for _, s := range strings.Split(p, "/") {
		if s == seg {
			return true
		}
	}
	return false
}

// keepsPath reports whether template path p is one of c's: of its scope's
// kind, and a status or scale path only when c has that subresource.
func (c CRD) keepsPath(p string) bool {
	_, plural := c.tmplKind()
	if !hasSegment(p, plural) {
		return false
	}
	if strings.HasSuffix(p, "/status") && !c.Status {
		return false
	}
	if strings.HasSuffix(p, "/scale") && !c.Scale {
		return false
	}
	return true
}

// keepsModel reports whether template model name m is one c's document
// holds. It holds its own kind and list, and the meta models. It holds the
// autoscaling Scale models only with the scale subresource.
func (c CRD) keepsModel(m string) bool {
	kind, _ := c.tmplKind()
	prefix := modelPrefix(tmplGroup, tmplVersion)
	switch {
	case strings.HasPrefix(m, prefix):
		return m == prefix+kind || m == prefix+kind+"List"
	case strings.HasPrefix(m, "io.k8s.api.autoscaling.v1."):
		return c.Scale
	}
	return true
}

// renamed returns v with the template's names turned into c's.
func renamed(r *strings.Replacer, v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	if err := json.Unmarshal([]byte(r.Replace(string(b))), &out); err != nil {
		return nil, err
	}
	return out, nil
}
