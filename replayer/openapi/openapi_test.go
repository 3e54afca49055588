package openapi

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// templateCRDs reads the two CRDs the template documents were built from.
func templateCRDs(t *testing.T) []CRD {
	t.Helper()
	b, err := os.ReadFile("testdata/template-crds.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var out []CRD
	for _, part := range strings.Split(string(b), "\n---\n") {
		j, err := yaml.YAMLToJSON([]byte(part))
		if err != nil {
			t.Fatal(err)
		}
		cs, err := CRDsOf(j)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, cs...)
	}
	return out
}

func TestCRDDocuments(t *testing.T) {
	crds := templateCRDs(t)
	d, err := New(crds)
	if err != nil {
		t.Fatal(err)
	}
	var got, want any
	if err := json.Unmarshal(d.v3["apis/zzz.lwreplay.test/v7alpha9"].json, &got); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(builtin().crdV3, &want); err != nil {
		t.Fatal(err)
	}
	t.Run("v3 - the template CRDs built again - pass", func(t *testing.T) {
		if !reflect.DeepEqual(got, want) {
			g, _ := json.Marshal(got)
			t.Errorf("got a document of %d bytes unlike kube-apiserver's (%d bytes)", len(g), len(builtin().crdV3))
		}
	})
	t.Run("v3 - a CRD without the scale subresource - pass", func(t *testing.T) {
		c := crds[0]
		c.Scale, c.Group, c.Kind, c.ListKind, c.Plural = false, "example.lwreplay.dev", "Widget", "WidgetList", "widgets"
		d, err := New([]CRD{c})
		if err != nil {
			t.Fatal(err)
		}
		var doc v3Doc
		if err := json.Unmarshal(d.v3["apis/example.lwreplay.dev/v7alpha9"].json, &doc); err != nil {
			t.Fatal(err)
		}
		if _, ok := doc.Paths["/apis/example.lwreplay.dev/v7alpha9/namespaces/{namespace}/widgets/{name}/scale"]; ok {
			t.Errorf("got a scale path, want none")
		}
		if _, ok := doc.Components.Schemas["dev.lwreplay.example.v7alpha9.Widget"]; !ok {
			t.Errorf("got no schema dev.lwreplay.example.v7alpha9.Widget, want one")
		}
		patch := doc.Paths["/apis/example.lwreplay.dev/v7alpha9/namespaces/{namespace}/widgets/{name}"]
		if !strings.Contains(mustJSON(t, patch), `"name":"fieldValidation"`) {
			t.Errorf("got a widget path without fieldValidation, want it (kubectl's server-side validation reads it)")
		}
	})
	t.Run("v2 - the template CRDs added - pass", func(t *testing.T) {
		x, err := d.v2()
		if err != nil {
			t.Fatal(err)
		}
		var v2, tmpl v2Part
		if err := json.Unmarshal(x.json, &v2); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(builtin().crdV2, &tmpl); err != nil {
			t.Fatal(err)
		}
		for p, want := range tmpl.Paths {
			if !jsonEqual(v2.Paths[p], want) {
				t.Errorf("v2 path %s: got %s, want kube-apiserver's", p, v2.Paths[p])
			}
		}
		for m, want := range tmpl.Definitions {
			if !jsonEqual(v2.Definitions[m], want) {
				t.Errorf("v2 definition %s: got %s, want %s", m, v2.Definitions[m], want)
			}
		}
	})
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func jsonEqual(a, b json.RawMessage) bool {
	var x, y any
	return json.Unmarshal(a, &x) == nil && json.Unmarshal(b, &y) == nil && reflect.DeepEqual(x, y)
}

func TestServe(t *testing.T) {
	d, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	apps := d.v3["apis/apps/v1"]
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, c := range []struct {
		name, path, accept, ifNoneMatch string
		code                            int
		header                          map[string]string
	}{
		{"index - pass", "/openapi/v3", "", "", 200, map[string]string{"Cache-Control": "no-cache, private"}},
		{"group version - no hash - pass", "/openapi/v3/apis/apps/v1", "application/json", "", 200,
			map[string]string{"Content-Type": "application/json", "Etag": `"` + apps.etag + `"`, "Cache-Control": "no-cache, private"}},
		{"group version - its hash - pass", "/openapi/v3/apis/apps/v1?hash=" + apps.etag, "application/json", "", 200,
			map[string]string{"Cache-Control": "public, immutable", "Expires": "Sat, 02 Jan 2027 03:04:05 UTC"}},
		{"group version - a stale hash - pass", "/openapi/v3/apis/apps/v1?hash=ABC", "application/json", "", 301,
			map[string]string{"Location": "/openapi/v3/apis/apps/v1?hash=" + apps.etag}},
		{"group version - protobuf - pass", "/openapi/v3/apis/apps/v1", "application/com.github.proto-openapi.spec.v3@v1.0+protobuf", "", 200,
			map[string]string{"Content-Type": "application/com.github.proto-openapi.spec.v3.v1.0+protobuf"}},
		{"group version - its ETag - pass", "/openapi/v3/apis/apps/v1", "application/json", `"` + apps.etag + `"`, 304, nil},
		{"group version - text - pass", "/openapi/v3/apis/apps/v1", "text/plain", "", 406, nil},
		{"group version - unknown - pass", "/openapi/v3/apis/nope/v1", "", "", 404, nil},
		{"v2 - protobuf - pass", "/openapi/v2", "application/com.github.proto-openapi.spec.v2@v1.0+protobuf", "", 200,
			map[string]string{"Content-Type": "application/com.github.proto-openapi.spec.v2.v1.0+protobuf"}},
		{"v2 - json - pass", "/openapi/v2", "application/json", "", 200, map[string]string{"Content-Type": "application/json"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest(http.MethodGet, c.path, nil)
			if c.accept != "" {
				r.Header.Set("Accept", c.accept)
			}
			if c.ifNoneMatch != "" {
				r.Header.Set("If-None-Match", c.ifNoneMatch)
			}
			w := httptest.NewRecorder()
			d.Serve(w, r, now)
			if w.Code != c.code {
				t.Fatalf("got %d, want %d", w.Code, c.code)
			}
			for k, v := range c.header {
				if got := w.Header().Get(k); got != v {
					t.Errorf("header %s: got %q, want %q", k, got, v)
				}
			}
		})
	}
	t.Run("index - lists every group version with its hash - pass", func(t *testing.T) {
		var idx struct {
			Paths map[string]struct {
				ServerRelativeURL string `json:"serverRelativeURL"`
			} `json:"paths"`
		}
		if err := json.Unmarshal(d.index, &idx); err != nil {
			t.Fatal(err)
		}
		if got, want := idx.Paths["apis/apps/v1"].ServerRelativeURL, "/openapi/v3/apis/apps/v1?hash="+apps.etag; got != want {
			t.Errorf("got %q, want %q", got, want)
		}
		if got, want := len(idx.Paths), len(builtin().v3); got != want {
			t.Errorf("got %d paths, want %d", got, want)
		}
	})
}
