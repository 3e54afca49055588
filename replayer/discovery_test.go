package replayer

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// pathRecorder notes the paths a handler was asked.
type pathRecorder struct {
	h     http.Handler
	mu    sync.Mutex
	paths map[string]bool
}

func (p *pathRecorder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.paths[r.URL.Path] = true
	p.mu.Unlock()
	p.h.ServeHTTP(w, r)
}

func (p *pathRecorder) asked() []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := []string{}
	for k := range p.paths {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestDiscoveryClient runs client-go's discovery client and RESTMapper
// on a read-only replay. Its discovery lists the resources its history
// records. (A writable one lists the built-in ones too:
// TestDiscoveryBuiltin.)
func TestDiscoveryClient(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		legacy bool
		asked  []string
	}{
		{name: "discovery client - aggregated - pass", asked: []string{"/api", "/apis"}},
		{name: "discovery client - legacy - pass", legacy: true, asked: []string{"/api", "/api/v1", "/apis", "/apis/apps/v1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &pathRecorder{h: New(listHistory(t), WithVersion("v1.36.4"), WithReadOnly()), paths: map[string]bool{}}
			ts := httptest.NewServer(rec)
			defer ts.Close()
			dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: ts.URL})
			if err != nil {
				t.Fatalf("discovery client: %v", err)
			}
			dc.UseLegacyDiscovery = tt.legacy
			groups, err := restmapper.GetAPIGroupResources(dc)
			if err != nil {
				t.Fatalf("GetAPIGroupResources: got error %v, want none", err)
			}
			if got := rec.asked(); !reflect.DeepEqual(got, tt.asked) {
				t.Errorf("got paths %v, want %v", got, tt.asked)
			}
			mapper := restmapper.NewDiscoveryRESTMapper(groups)
			for _, want := range []struct {
				gk       schema.GroupKind
				resource string
				scope    meta.RESTScopeName
			}{
				{schema.GroupKind{Kind: "ConfigMap"}, "configmaps", meta.RESTScopeNameNamespace},
				{schema.GroupKind{Kind: "Namespace"}, "namespaces", meta.RESTScopeNameRoot},
				{schema.GroupKind{Group: "apps", Kind: "Deployment"}, "deployments", meta.RESTScopeNameNamespace},
			} {
				m, err := mapper.RESTMapping(want.gk)
				if err != nil {
					t.Errorf("RESTMapping(%v): got error %v, want none", want.gk, err)
					continue
				}
				if m.Resource.Resource != want.resource || m.Scope.Name() != want.scope {
					t.Errorf("RESTMapping(%v): got %s %s, want %s %s", want.gk, m.Resource.Resource, m.Scope.Name(), want.resource, want.scope)
				}
			}
			v, err := dc.ServerVersion()
			if err != nil {
				t.Fatalf("ServerVersion: got error %v, want none", err)
			}
			if v.GitVersion != "v1.36.4" || v.Major != "1" || v.Minor != "36" || v.MinCompatibilityMinor != "35" {
				t.Errorf("got version %+v, want v1.36.4, major 1, minor 36, minCompatibilityMinor 35", v)
			}
		})
	}
}

const (
	// aggregatedContentType is the media type of an aggregated answer.
	aggregatedContentType = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList"
	acceptAggregated      = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json"
	acceptV2beta1         = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"
)

// Recorded discovery answers the path tests put in the history. They list
// deployments, which listHistory has a log of. Beside it they list
// resources and subresources it has no traffic of (replicasets, jobs,
// deployments/scale).
const (
	recordedVersion  = `{"major":"1","minor":"30","gitVersion":"v1.30.9-recorded"}`
	recordedAppsV1   = `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[{"name":"replicasets","singularName":"replicaset","namespaced":true,"kind":"ReplicaSet","verbs":["get","list","watch"]},{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["create","get","list","watch"],"storageVersionHash":"8aSe+NMegvE="},{"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale","verbs":["get","patch","update"]},{"name":"deployments/status","singularName":"","namespaced":true,"kind":"Deployment","verbs":["get","patch","update"]}]}`
	servedAppsV1     = `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"apps/v1","resources":[{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","list","watch"],"storageVersionHash":"8aSe+NMegvE="},{"name":"deployments/status","singularName":"","namespaced":true,"kind":"Deployment","verbs":["get"]}]}`
	recordedAggApis  = `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"name":"apps"},"versions":[{"version":"v1","resources":[{"resource":"deployments","responseKind":{"group":"apps","version":"v1","kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment","verbs":["create","delete","get","list","patch","watch"],"shortNames":["deploy"],"categories":["all"],"subresources":[{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"},"verbs":["get","patch","update"]},{"subresource":"status","responseKind":{"group":"apps","version":"v1","kind":"Deployment"},"verbs":["get","patch","update"]}]},{"resource":"replicasets","responseKind":{"group":"apps","version":"v1","kind":"ReplicaSet"},"scope":"Namespaced","singularResource":"replicaset","verbs":["get","list","watch"]}],"freshness":"Current"}]},{"metadata":{"name":"batch"},"versions":[{"version":"v1","resources":[{"resource":"jobs","responseKind":{"group":"batch","version":"v1","kind":"Job"},"scope":"Namespaced","singularResource":"job","verbs":["get","list"],"subresources":[{"subresource":"status","responseKind":{"group":"batch","version":"v1","kind":"Job"},"verbs":["get"]}]}],"freshness":"Current"}]}]}`
	servedAggApis    = `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[{"metadata":{"name":"apps"},"versions":[{"version":"v1","resources":[{"resource":"deployments","responseKind":{"group":"apps","version":"v1","kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment","verbs":["get","list","watch"],"shortNames":["deploy"],"categories":["all"],"subresources":[{"subresource":"status","responseKind":{"group":"apps","version":"v1","kind":"Deployment"},"verbs":["get"]}]}],"freshness":"Current"}]}]}`
	recordedAggBeta1 = `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2beta1","metadata":{},"items":[{"metadata":{"name":"batch"},"versions":[{"version":"v1","resources":[{"resource":"cronjobs","responseKind":{"group":"batch","version":"v1","kind":"CronJob"},"scope":"Namespaced","singularResource":"cronjob","verbs":["get"]}],"freshness":"Current"}]}]}`
)

// TestDiscoveryPaths asks a read-only replay each discovery path: what
// it answers is what its history records (a writable one's adds the
// built-in resources: TestDiscoveryBuiltin, TestDiscoveryBuiltinRecorded).
func TestDiscoveryPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		recorded    map[string]string
		path        string
		accept      string
		code        int
		contentType string
		golden      string   // compare the whole answer with this golden file
		body        string   // or want exactly this body
		contains    []string // or want the body to contain these
		absent      []string // and not these
	}{
		{name: "discovery api - legacy - pass", path: "/api", accept: "application/json", code: 200, contentType: "application/json",
			contains: []string{`"kind":"APIVersions"`, `"versions":["v1"]`}},
		{name: "discovery api - aggregated - pass", path: "/api", accept: acceptAggregated, code: 200, contentType: aggregatedContentType, golden: "discovery_api_aggregated.golden"},
		{name: "discovery apis - aggregated - pass", path: "/apis", accept: acceptAggregated, code: 200, contentType: aggregatedContentType, golden: "discovery_apis_aggregated.golden"},
		{name: "discovery apis - legacy - pass", path: "/apis", accept: "application/json", code: 200, contentType: "application/json", golden: "discovery_apis.golden"},
		{name: "discovery apis - v2beta1 asked - pass", path: "/apis", accept: acceptV2beta1, code: 200, contentType: "application/json",
			contains: []string{`"kind":"APIGroupList"`}},
		{name: "discovery apis - no accept - pass", path: "/apis", code: 200, contentType: "application/json", contains: []string{`"kind":"APIGroupList"`}},
		{name: "discovery api v1 - legacy - pass", path: "/api/v1", accept: "application/json", code: 200, contentType: "application/json", golden: "discovery_api_v1.golden"},
		{name: "discovery group - apps - pass", path: "/apis/apps", code: 200, contentType: "application/json",
			contains: []string{`"kind":"APIGroup"`, `"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}`}},
		{name: "discovery group version - apps v1 - pass", path: "/apis/apps/v1", code: 200, contentType: "application/json",
			contains: []string{`"groupVersion":"apps/v1"`, `{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","verbs":["get","list","watch"],"shortNames":["deploy"],"categories":["all"]}`}},
		{name: "discovery group version - trailing slash - pass", path: "/apis/apps/v1/", code: 200, contentType: "application/json", contains: []string{`"groupVersion":"apps/v1"`}},
		{name: "discovery version - built - pass", path: "/version", code: 200, contentType: "application/json",
			contains: []string{`"major":"1"`, `"minor":"37"`, `"gitVersion":"v1.37.2"`}},
		{name: "discovery version - recorded - pass", recorded: map[string]string{"/version": recordedVersion}, path: "/version", code: 200, contentType: "application/json", body: recordedVersion + "\n"},
		{name: "discovery group version - recorded, what the history answers - pass", recorded: map[string]string{"/apis/apps/v1": recordedAppsV1}, path: "/apis/apps/v1", code: 200, contentType: "application/json", body: servedAppsV1 + "\n"},
		{name: "discovery apis - recorded aggregated, what the history answers - pass", recorded: map[string]string{"/apis": recordedAggApis}, path: "/apis", accept: acceptAggregated, code: 200, contentType: aggregatedContentType, body: servedAggApis + "\n"},
		{name: "discovery apis - recorded aggregated asked legacy - pass", recorded: map[string]string{"/apis": recordedAggApis}, path: "/apis", accept: "application/json", code: 200, contentType: "application/json",
			contains: []string{`"name":"apps"`}, absent: []string{`"name":"batch"`}},
		{name: "discovery group version - from recorded aggregated - pass", recorded: map[string]string{"/apis": recordedAggApis}, path: "/apis/apps/v1", code: 200, contentType: "application/json",
			contains: []string{`"name":"deployments"`, `"name":"deployments/status"`, `"kind":"Deployment","verbs":["get"]}`}, absent: []string{"replicasets", "scale"}},
		{name: "discovery group version - recorded aggregated, no traffic - fail", recorded: map[string]string{"/apis": recordedAggApis}, path: "/apis/batch/v1", code: 404, contentType: "application/json"},
		{name: "discovery group - recorded aggregated, no traffic - fail", recorded: map[string]string{"/apis": recordedAggApis}, path: "/apis/batch", code: 404, contentType: "application/json"},
		{name: "discovery apis - recorded v2beta1 asked v2 - pass", recorded: map[string]string{"/apis": recordedAggBeta1}, path: "/apis", accept: acceptAggregated, code: 200, contentType: aggregatedContentType,
			contains: []string{`"apiVersion":"apidiscovery.k8s.io/v2"`, `"resource":"deployments"`}, absent: []string{"cronjobs"}},
		{name: "discovery openapi - v2 - pass", path: "/openapi/v2", code: 200, contentType: "application/json"},
		{name: "discovery openapi - v3 index, typed as kube-apiserver 1.37 types it - pass", path: "/openapi/v3", code: 200, contentType: "text/plain; charset=utf-8"},
		{name: "discovery group version - unknown group - fail", path: "/apis/nope/v1", code: 404, contentType: "application/json"},
		{name: "discovery group - unknown group - fail", path: "/apis/nope", code: 404, contentType: "application/json"},
		{name: "discovery core - unknown version - fail", path: "/api/v2", code: 404, contentType: "application/json"},
		{name: "discovery health - not served - fail", path: "/healthz", code: 404, contentType: "application/json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := listHistory(t)
			for p, b := range tt.recorded {
				h.Discovery[p] = []byte(b)
			}
			rec := get(New(h, WithReadOnly()), tt.path, tt.accept)
			if rec.Code != tt.code {
				t.Fatalf("got code %d, want %d: %s", rec.Code, tt.code, rec.Body)
			}
			if ct := rec.Header().Get("Content-Type"); ct != tt.contentType {
				t.Errorf("got Content-Type %q, want %q", ct, tt.contentType)
			}
			if !json.Valid(rec.Body.Bytes()) {
				t.Errorf("got body %s, want JSON", rec.Body)
			}
			if tt.code != 200 {
				var st metav1.Status
				if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil || st.Kind != "Status" || st.Reason != metav1.StatusReasonNotFound {
					t.Errorf("got %s, want a NotFound Status", rec.Body)
				}
			}
			if tt.golden != "" {
				checkGolden(t, tt.golden, wire(tt.path, rec))
			}
			if tt.body != "" && rec.Body.String() != tt.body {
				t.Errorf("got body %s, want %s", rec.Body, tt.body)
			}
			for _, c := range tt.contains {
				if !strings.Contains(rec.Body.String(), c) {
					t.Errorf("got body %s, want it to contain %s", rec.Body, c)
				}
			}
			for _, c := range tt.absent {
				if strings.Contains(rec.Body.String(), c) {
					t.Errorf("got body %s, want no %s in it", rec.Body, c)
				}
			}
		})
	}
}
