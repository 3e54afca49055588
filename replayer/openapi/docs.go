package openapi

import (
	"crypto/sha512"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"sync"

	openapi_v2 "github.com/google/gnostic-models/openapiv2"
	openapi_v3 "github.com/google/gnostic-models/openapiv3"
	"google.golang.org/protobuf/proto"
)

// Docs are the OpenAPI documents one replay serves. For the built-in
// resources, they are kube-apiserver v1.37.2's, as it served them. For
// each custom resource, they are the documents kube-apiserver builds from
// its CRD.
type Docs struct {
	v3    map[string]*doc // by index path
	index []byte          // /openapi/v3's answer
	crds  []CRD
	v2    func() (*doc, error)
}

// doc is one document: its JSON, the ETag kube-openapi gives it, and its
// protobuf, made once when asked. The ETag is the SHA-512 of the JSON in
// upper-case hex.
type doc struct {
	json []byte
	etag string
	pb   func() ([]byte, error)
}

// newDoc returns the doc of j; toPB makes its protobuf.
func newDoc(j []byte, toPB func([]byte) ([]byte, error)) *doc {
	return &doc{json: j, etag: fmt.Sprintf("%X", sha512.Sum512(j)), pb: sync.OnceValues(func() ([]byte, error) { return toPB(j) })}
}

// v2PB and v3PB are kube-openapi's ToProtoBinary and ToV3ProtoBinary.
func v2PB(j []byte) ([]byte, error) {
	d, err := openapi_v2.ParseDocument(j)
	if err != nil {
		return nil, err
	}
	return proto.Marshal(d)
}

func v3PB(j []byte) ([]byte, error) {
	d, err := openapi_v3.ParseDocument(j)
	if err != nil {
		return nil, err
	}
	return proto.Marshal(d)
}

// builtinV3 are the recorded v3 documents, made once.
var builtinV3 = sync.OnceValue(func() map[string]*doc {
	out := map[string]*doc{}
	for p, j := range builtin().v3 {
		out[p] = newDoc(j, v3PB)
	}
	return out
})

// builtinV2 is the recorded v2 document, made once.
var builtinV2 = sync.OnceValue(func() *doc { return newDoc(builtin().v2, v2PB) })

// New returns the documents of a replay that serves the custom resources
// crds beside the built-in ones. A CRD of a built-in group version is left
// out, as kube-apiserver does not serve it.
func New(crds []CRD) (*Docs, error) {
	b := builtin()
	if b.loaded != nil {
		return nil, b.loaded
	}
	d := &Docs{v3: map[string]*doc{}}
	for p, x := range builtinV3() {
		d.v3[p] = x
	}
	byGV := map[string][]CRD{}
	var gvs []string
	for _, c := range crds {
		p := c.gvPath()
		if b.v3[p] != nil {
			continue
		}
		if byGV[p] == nil {
			gvs = append(gvs, p)
		}
		byGV[p] = append(byGV[p], c)
		d.crds = append(d.crds, c)
	}
	for _, p := range gvs {
		j, err := crdV3(b.crdV3, byGV[p])
		if err != nil {
			return nil, err
		}
		d.v3[p] = newDoc(j, v3PB)
	}
	idx := map[string]map[string]string{}
	for p, x := range d.v3 {
		idx[p] = map[string]string{"serverRelativeURL": "/openapi/v3/" + p + "?" + url.Values{"hash": {x.etag}}.Encode()}
	}
	j, err := json.Marshal(map[string]any{"paths": idx})
	if err != nil {
		return nil, fmt.Errorf("openapi: the v3 index: %w", err)
	}
	d.index = j
	d.v2 = sync.OnceValues(func() (*doc, error) {
		if len(d.crds) == 0 {
			return builtinV2(), nil
		}
		j, err := crdV2(b.v2, b.crdV2, d.crds)
		if err != nil {
			return nil, err
		}
		return newDoc(j, v2PB), nil
	})
	return d, nil
}

// v3Doc is a v3 document's layout, in kube-openapi's order.
type v3Doc struct {
	OpenAPI    string         `json:"openapi"`
	Info       map[string]any `json:"info"`
	Paths      map[string]any `json:"paths"`
	Components struct {
		Schemas map[string]any `json:"schemas"`
	} `json:"components"`
}

// crdV3 builds the v3 document of one group version's CRDs from the
// template tmpl, merged as kube-apiserver merges its CRDs' documents.
func crdV3(tmpl []byte, crds []CRD) ([]byte, error) {
	var t v3Doc
	if err := json.Unmarshal(tmpl, &t); err != nil {
		return nil, fmt.Errorf("openapi: the CRD template: %w", err)
	}
	out := v3Doc{OpenAPI: t.OpenAPI, Info: t.Info, Paths: map[string]any{}}
	out.Components.Schemas = map[string]any{}
	for _, c := range crds {
		r := c.renamer()
		for p, v := range t.Paths {
			if !c.keepsPath(p) {
				continue
			}
			nv, err := renamed(r, v)
			if err != nil {
				return nil, fmt.Errorf("openapi: %s: %w", p, err)
			}
			out.Paths[r.Replace(p)] = nv
		}
		for m, v := range t.Components.Schemas {
			if !c.keepsModel(m) {
				continue
			}
			nv, err := renamed(r, v)
			if err != nil {
				return nil, fmt.Errorf("openapi: %s: %w", m, err)
			}
			out.Components.Schemas[r.Replace(m)] = nv
		}
		ks, err := kindSchema(c, false)
		if err != nil {
			return nil, err
		}
		out.Components.Schemas[modelPrefix(c.Group, c.Version)+c.Kind] = ks
	}
	return json.Marshal(out)
}

// v2Part are the paths and definitions of a v2 document.
type v2Part struct {
	Paths       map[string]json.RawMessage `json:"paths"`
	Definitions map[string]json.RawMessage `json:"definitions"`
}

// crdV2 returns the built-in v2 document with the paths and definitions
// of crds added, made from the template tmpl.
func crdV2(builtinDoc, tmpl []byte, crds []CRD) ([]byte, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(builtinDoc, &top); err != nil {
		return nil, fmt.Errorf("openapi: the v2 document: %w", err)
	}
	var base, t v2Part
	if err := json.Unmarshal(builtinDoc, &base); err != nil {
		return nil, fmt.Errorf("openapi: the v2 document: %w", err)
	}
	if err := json.Unmarshal(tmpl, &t); err != nil {
		return nil, fmt.Errorf("openapi: the v2 CRD template: %w", err)
	}
	sorted := func(m map[string]json.RawMessage) []string {
		ks := make([]string, 0, len(m))
		for k := range m {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		return ks
	}
	for _, c := range crds {
		r := c.renamer()
		for _, p := range sorted(t.Paths) {
			if c.keepsPath(p) {
				base.Paths[r.Replace(p)] = json.RawMessage(r.Replace(string(t.Paths[p])))
			}
		}
		kind, _ := c.tmplKind()
		list := modelPrefix(tmplGroup, tmplVersion) + kind + "List"
		base.Definitions[r.Replace(list)] = json.RawMessage(r.Replace(string(t.Definitions[list])))
		ks, err := kindSchema(c, true)
		if err != nil {
			return nil, err
		}
		j, err := json.Marshal(ks)
		if err != nil {
			return nil, err
		}
		base.Definitions[modelPrefix(c.Group, c.Version)+c.Kind] = j
	}
	for k, v := range map[string]any{"paths": base.Paths, "definitions": base.Definitions} {
		j, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("openapi: the v2 document's %s: %w", k, err)
		}
		top[k] = j
	}
	return json.Marshal(top)
}
