package openapi

import (
	"encoding/json"
	"fmt"
	"slices"
)

// The kind schema of a custom resource, as the apiextensions builder
// makes it (buildKubeNative). It is the version's structural schema
// unfolded: an x-kubernetes-int-or-string value gets anyOf integer or
// string. It has apiVersion, kind and metadata set, and the same in each
// x-kubernetes-embedded-resource. It has x-kubernetes-group-version-kind.
// For v2 it is first made what v2 can say (ToStructuralOpenAPIV2). A
// schema that keeps unknown fields at its root is then a bare object.

// The descriptions kube-apiserver gives the properties it adds.
const (
	descAPIVersion = "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized schemas to the latest internal value, and may reject unrecognized values. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	descKind       = "Kind is a string value representing the REST resource this object represents. Servers may infer this from the endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"
	descMetadata   = "Standard object's metadata. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#metadata"

	descEmbeddedAPIVersion = "apiVersion defines the versioned schema of this representation of an object. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"
	descEmbeddedKind       = "kind is a string value representing the type of this object. In CamelCase. More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"

	objectMeta = "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"
)

// kindSchema returns c's kind schema for v3 (v2 false) or v2.
func kindSchema(c CRD, v2 bool) (map[string]any, error) {
	var s map[string]any
	if len(c.Schema) > 0 {
		if err := json.Unmarshal(c.Schema, &s); err != nil {
			return nil, fmt.Errorf("openapi: the schema of %s/%s %s: %w", c.Group, c.Version, c.Kind, err)
		}
	}
	gvk := []any{map[string]any{"group": c.Group, "version": c.Version, "kind": c.Kind}}
	if s == nil || (v2 && (isTrue(s, "x-kubernetes-preserve-unknown-fields") || c.PreserveUnknownFields)) {
		return map[string]any{"type": "object", "x-kubernetes-group-version-kind": gvk}, nil
	}
	unfold(s)
	if v2 {
		toV2(s)
	}
	props := properties(s)
	props["apiVersion"] = map[string]any{"description": descAPIVersion, "type": "string"}
	props["kind"] = map[string]any{"description": descKind, "type": "string"}
	props["metadata"] = metaRef(descMetadata, v2)
	addEmbedded(s, v2)
	s["x-kubernetes-group-version-kind"] = gvk
	return s, nil
}

// metaRef is a reference to ObjectMeta with a description: v3 wraps it in
// allOf, as kube-openapi's v3 builder does.
func metaRef(desc string, v2 bool) map[string]any {
	if v2 {
		return map[string]any{"description": desc, "$ref": "#/definitions/" + objectMeta}
	}
	return map[string]any{"description": desc, "allOf": []any{map[string]any{"$ref": "#/components/schemas/" + objectMeta}}}
}

// isTrue reports whether s[key] is true.
func isTrue(s map[string]any, key string) bool {
	b, _ := s[key].(bool)
	return b
}

// properties returns s's properties, made when it has none.
func properties(s map[string]any) map[string]any {
	p, ok := s["properties"].(map[string]any)
	if !ok {
		p = map[string]any{}
		s["properties"] = p
	}
	return p
}

// children calls fn on each schema nested in s: properties,
// additionalProperties, items; and the junctors' schemas when all is set.
func children(s map[string]any, all bool, fn func(map[string]any)) {
	if p, ok := s["properties"].(map[string]any); ok {
		for _, v := range p {
			if c, ok := v.(map[string]any); ok {
				fn(c)
			}
		}
	}
	for _, k := range []string{"additionalProperties", "items"} {
		if c, ok := s[k].(map[string]any); ok {
			fn(c)
		}
	}
	if !all {
		return
	}
	for _, k := range []string{"allOf", "anyOf", "oneOf"} {
		if l, ok := s[k].([]any); ok {
			for _, v := range l {
				if c, ok := v.(map[string]any); ok {
					fn(c)
				}
			}
		}
	}
}

// unfold gives every x-kubernetes-int-or-string schema that says neither
// its anyOf nor an allOf of one anyOf integer or string (Structural.Unfold).
func unfold(s map[string]any) {
	children(s, false, unfold)
	if !isTrue(s, "x-kubernetes-int-or-string") {
		return
	}
	intOrString := []any{map[string]any{"type": "integer"}, map[string]any{"type": "string"}}
	if _, ok := s["anyOf"]; !ok {
		s["anyOf"] = intOrString
		return
	}
	if l, ok := s["allOf"].([]any); ok && len(l) > 0 {
		if first, ok := l[0].(map[string]any); ok && len(first) == 1 && first["anyOf"] != nil {
			return
		}
	}
	all, _ := s["allOf"].([]any)
	s["allOf"] = append([]any{map[string]any{"anyOf": intOrString}}, all...)
}

// toV2 makes s what v2 can say, as ToStructuralOpenAPIV2 does. It does
// each schema before those it holds:
//   - no allOf, anyOf, oneOf or not;
//   - a nullable schema untyped, without properties or items;
//   - a schema that keeps unknown fields without properties or items, and
//     untyped if an object;
//   - an array without items untyped;
//   - a nullable property not required.
//
// Value validations stay (kube-apiserver 1.37 keeps them in v2).
func toV2(s map[string]any) {
	for _, k := range []string{"allOf", "anyOf", "oneOf", "not"} {
		delete(s, k)
	}
	if isTrue(s, "nullable") {
		delete(s, "type")
		delete(s, "nullable")
		delete(s, "items")
		delete(s, "properties")
	}
	if isTrue(s, "x-kubernetes-preserve-unknown-fields") {
		delete(s, "items")
		delete(s, "properties")
	}
	if _, ok := s["items"]; !ok && s["type"] == "array" {
		delete(s, "type")
	}
	if isTrue(s, "x-kubernetes-preserve-unknown-fields") && s["type"] == "object" {
		delete(s, "type")
	}
	if req, ok := s["required"].([]any); ok {
		props, _ := s["properties"].(map[string]any)
		var kept []any
		for _, r := range req {
			name, _ := r.(string)
			if p, ok := props[name].(map[string]any); ok && isTrue(p, "nullable") {
				continue
			}
			kept = append(kept, r)
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok && isTrue(ap, "nullable") {
			kept = nil
		}
		if kept == nil {
			delete(s, "required")
		} else {
			s["required"] = kept
		}
	}
	children(s, false, toV2)
}

// addEmbedded gives every x-kubernetes-embedded-resource schema apiVersion,
// kind and metadata, kind and apiVersion required (in v2, not under a
// schema that keeps unknown fields).
func addEmbedded(s map[string]any, v2 bool) {
	children(s, false, func(c map[string]any) { addEmbedded(c, v2) })
	if v2 && isTrue(s, "x-kubernetes-preserve-unknown-fields") {
		return
	}
	if !isTrue(s, "x-kubernetes-embedded-resource") {
		return
	}
	props := properties(s)
	props["apiVersion"] = map[string]any{"description": descEmbeddedAPIVersion, "type": "string"}
	props["kind"] = map[string]any{"description": descEmbeddedKind, "type": "string"}
	props["metadata"] = metaRef(descMetadata, v2)
	var req []string
	if l, ok := s["required"].([]any); ok {
		for _, v := range l {
			if r, ok := v.(string); ok {
				req = append(req, r)
			}
		}
	}
	for _, k := range []string{"kind", "apiVersion"} {
		if !slices.Contains(req, k) {
			req = append(req, k)
		}
	}
	out := make([]any, len(req))
	for i, r := range req {
		out[i] = r
	}
	s["required"] = out
}
