package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
)

// openapiCRD is a CRD whose schema has what the apiextensions builder
// changes. That is int-or-string, an embedded resource, nullable,
// value validations, a subtree that keeps unknown fields, and scale.
const openapiCRD = `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"sprockets.openapi.lwreplay.example.com"},
"spec":{"group":"openapi.lwreplay.example.com","scope":"Cluster","names":{"plural":"sprockets","singular":"sprocket","kind":"Sprocket","listKind":"SprocketList"},
"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"status":{},"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"}},
"schema":{"openAPIV3Schema":{"type":"object","required":["spec"],"properties":{
"spec":{"type":"object","required":["replicas"],"properties":{
 "replicas":{"type":"integer","format":"int32","minimum":0},
 "port":{"x-kubernetes-int-or-string":true},
 "mode":{"type":"string","enum":["a","b"],"nullable":true},
 "template":{"type":"object","x-kubernetes-embedded-resource":true,"x-kubernetes-preserve-unknown-fields":true},
 "extra":{"type":"object","x-kubernetes-preserve-unknown-fields":true,"properties":{"x":{"type":"string"}}},
 "items":{"type":"array","items":{"type":"string","pattern":"^[a-z]+$"},"maxItems":3}}},
"status":{"type":"object","properties":{"replicas":{"type":"integer"}}}}}}}]}}`

// TestServedOpenAPILikeRealApiserver compares what the replay serves with
// kube-apiserver 1.37.2's, on the paths kubectl reads for its validation
// and apply. They are /openapi/v3, the group version documents with their
// hash, and /openapi/v2. It covers built-in kinds, and custom resources
// whose CRD the recording holds.
func TestServedOpenAPILikeRealApiserver(t *testing.T) {
	c := sharedCluster(t)
	ctx := t.Context()
	cfg := c.RestConfig()
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := applyCRD(ctx, dyn, widgetCRD, widgetGVR); err != nil {
		t.Fatal(err)
	}
	crdPath := "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
	if err := cs.RESTClient().Post().AbsPath(crdPath).Body([]byte(openapiCRD)).Do(ctx).Error(); err != nil && !strings.Contains(err.Error(), "already exists") {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.RESTClient().Delete().AbsPath(crdPath + "/sprockets.openapi.lwreplay.example.com").Do(ctx)
	})
	rt, err := rest.TransportFor(cfg)
	if err != nil {
		t.Fatal(err)
	}
	get := func(rt http.RoundTripper, host, path, accept string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, host+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}
	// the CRDs' documents are built by a controller: wait for the real
	// index to list both group versions
	gvs := []string{"api/v1", "apis/apps/v1", "apis/example.lwreplay.dev/v1", "apis/openapi.lwreplay.example.com/v1"}
	var realIndex map[string]map[string]map[string]string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(200 * time.Millisecond) {
		_, b := get(rt, cfg.Host, "/openapi/v3", "")
		realIndex = nil
		if err := json.Unmarshal(b, &realIndex); err != nil {
			t.Fatal(err)
		}
		if realIndex["paths"][gvs[2]] != nil && realIndex["paths"][gvs[3]] != nil || time.Now().After(deadline) {
			break
		}
	}
	crds, err := cs.RESTClient().Get().AbsPath(crdPath).DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	h, err := history.Build(&cassette.File{Path: "openapi.yaml", Interactions: []cassette.Interaction{{Method: "GET", URL: cfg.Host + crdPath, Code: 200, Body: crds}}})
	if err != nil {
		t.Fatal(err)
	}
	srv := replayer.New(h)
	const host = "http://replay.invalid"
	_, b := get(srv.Transport(), host, "/openapi/v3", "")
	var index map[string]map[string]map[string]string
	if err := json.Unmarshal(b, &index); err != nil {
		t.Fatal(err)
	}
	for _, gv := range gvs {
		t.Run("v3 "+gv+" - like the real apiserver - pass", func(t *testing.T) {
			realURL, gotURL := realIndex["paths"][gv]["serverRelativeURL"], index["paths"][gv]["serverRelativeURL"]
			if realURL == "" || gotURL == "" {
				t.Fatalf("index: got %q, want the real apiserver's %q", gotURL, realURL)
			}
			if !strings.HasPrefix(gv, "apis/openapi") && !strings.HasPrefix(gv, "apis/example") && gotURL != realURL {
				t.Errorf("index: got %q, want %q (the same document, the same hash)", gotURL, realURL)
			}
			wantResp, want := get(rt, cfg.Host, realURL, "application/json")
			gotResp, got := get(srv.Transport(), host, gotURL, "application/json")
			for _, k := range []string{"Content-Type", "Cache-Control", "Vary"} {
				if g, w := gotResp.Header.Get(k), wantResp.Header.Get(k); g != w {
					t.Errorf("header %s: got %q, want %q", k, g, w)
				}
			}
			if !sameJSON(t, got, want) {
				t.Errorf("document: got %d bytes, want the real apiserver's %d bytes, equal as JSON", len(got), len(want))
			}
			stale, _ := get(srv.Transport(), host, "/openapi/v3/"+gv+"?hash=0", "application/json")
			realStale, _ := get(rt, cfg.Host, "/openapi/v3/"+gv+"?hash=0", "application/json")
			if stale.StatusCode != realStale.StatusCode {
				t.Errorf("a stale hash: got %d, want %d", stale.StatusCode, realStale.StatusCode)
			}
		})
	}
	t.Run("v2 - the kinds kubectl validates - like the real apiserver - pass", func(t *testing.T) {
		_, want := get(rt, cfg.Host, "/openapi/v2", "application/json")
		_, got := get(srv.Transport(), host, "/openapi/v2", "application/json")
		var g, w struct {
			Paths       map[string]json.RawMessage `json:"paths"`
			Definitions map[string]json.RawMessage `json:"definitions"`
		}
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(want, &w); err != nil {
			t.Fatal(err)
		}
		for _, d := range []string{"io.k8s.api.apps.v1.Deployment", "io.k8s.api.core.v1.ConfigMap", "dev.lwreplay.example.v1.Widget",
			"dev.lwreplay.example.v1.WidgetList", "com.example.lwreplay.openapi.v1.Sprocket", "com.example.lwreplay.openapi.v1.SprocketList"} {
			if !sameJSON(t, g.Definitions[d], w.Definitions[d]) {
				t.Errorf("definition %s: got %s, want %s", d, g.Definitions[d], w.Definitions[d])
			}
		}
		for p, want := range w.Paths {
			if !strings.Contains(p, "lwreplay") || strings.Contains(p, "table.lwreplay") {
				continue
			}
			if !sameJSON(t, g.Paths[p], want) {
				t.Errorf("path %s: got %.200s, want %.200s", p, g.Paths[p], want)
			}
		}
	})
}

// sameJSON reports whether a and b are equal as JSON.
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		return false
	}
	if err := json.Unmarshal(b, &y); err != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
