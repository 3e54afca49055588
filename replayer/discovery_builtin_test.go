package replayer

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	cgdiscovery "k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/discovery"
	"github.com/lwreplay/lwreplay/synth"
)

// configMapsHistory is a history of configmaps only.
func configMapsHistory(t *testing.T) *history.History {
	t.Helper()
	b := synth.NewBuilder()
	b.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "one"}})
	b.Snapshot()
	h, err := b.History()
	if err != nil {
		t.Fatalf("history: %v", err)
	}
	return h
}

// listedResources returns what a discovery client of s finds, in the
// legacy form or the aggregated one. It maps "<group version> <resource>"
// to its APIResource, subresources left out.
func listedResources(t *testing.T, s *Server, legacy bool) map[string]metav1.APIResource {
	t.Helper()
	ts := httptest.NewServer(s)
	defer ts.Close()
	dc, err := cgdiscovery.NewDiscoveryClientForConfig(&rest.Config{Host: ts.URL})
	if err != nil {
		t.Fatalf("discovery client: %v", err)
	}
	dc.UseLegacyDiscovery = legacy
	_, lists, err := dc.ServerGroupsAndResources()
	if err != nil {
		t.Fatalf("ServerGroupsAndResources: got error %v, want none", err)
	}
	out := map[string]metav1.APIResource{}
	for _, rl := range lists {
		for _, r := range rl.APIResources {
			if !strings.Contains(r.Name, "/") {
				out[rl.GroupVersion+" "+r.Name] = r
			}
		}
	}
	return out
}

// TestDiscoveryBuiltin checks that the discovery of a replay that takes
// writes lists the built-in resources it serves from empty. It lists them
// before any request for them, in both forms. A read-only replay's does
// not.
func TestDiscoveryBuiltin(t *testing.T) {
	t.Parallel()
	builtins := []struct {
		key, kind  string
		namespaced bool
	}{
		{"v1 secrets", "Secret", true},
		{"apps/v1 deployments", "Deployment", true},
		{"coordination.k8s.io/v1 leases", "Lease", true},
		{"v1 namespaces", "Namespace", false},
		{"autoscaling/v2 horizontalpodautoscalers", "HorizontalPodAutoscaler", true},
	}
	tests := []struct {
		name             string
		readOnly, legacy bool
	}{
		{name: "discovery builtin - writable, aggregated - pass"},
		{name: "discovery builtin - writable, legacy - pass", legacy: true},
		{name: "discovery builtin - read-only, aggregated - fail", readOnly: true},
		{name: "discovery builtin - read-only, legacy - fail", readOnly: true, legacy: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []Option
			if tt.readOnly {
				opts = append(opts, WithReadOnly())
			}
			got := listedResources(t, New(configMapsHistory(t), opts...), tt.legacy)
			if _, ok := got["v1 configmaps"]; !ok {
				t.Errorf("got no v1 configmaps, want the recorded resource listed")
			}
			for _, b := range builtins {
				r, ok := got[b.key]
				if ok != !tt.readOnly {
					t.Errorf("%s: got listed %v, want %v", b.key, ok, !tt.readOnly)
					continue
				}
				// a replay that takes writes lists kube-apiserver's verbs
				// (kube-controller-manager's garbage collector needs delete)
				if ok && (r.Kind != b.kind || r.Namespaced != b.namespaced || strings.Join(r.Verbs, ",") != "create,delete,deletecollection,get,list,patch,update,watch") {
					t.Errorf("%s: got kind %s, namespaced %v, verbs %v, want %s, %v, [create delete deletecollection get list patch update watch]", b.key, r.Kind, r.Namespaced, r.Verbs, b.kind, b.namespaced)
				}
			}
			for _, k := range []string{"autoscaling/v1 horizontalpodautoscalers", "coordination.k8s.io/v1alpha2 leasecandidates", "authentication.k8s.io/v1 tokenreviews", "v1 bindings"} {
				if _, ok := got[k]; ok {
					t.Errorf("%s: got listed, want not (no preferred version's resource)", k)
				}
			}
		})
	}
}

// TestDiscoveryBuiltinServed checks that discovery and what a writable
// replay serves from empty agree. A LIST of every built-in resource
// discovery lists is answered (its log made). Discovery answers the same
// before and after. A resource of client-go's scheme that discovery does
// not list is not served.
func TestDiscoveryBuiltinServed(t *testing.T) {
	t.Parallel()
	s := New(configMapsHistory(t))
	paths := []string{"/api", "/apis", "/api/v1", "/apis/apps/v1"}
	answers := func() map[string]string {
		out := map[string]string{}
		for _, p := range paths {
			for _, accept := range []string{"application/json", acceptAggregated} {
				out[p+" "+accept] = get(s, p, accept).Body.String()
			}
		}
		return out
	}
	before := answers()
	listed := listedResources(t, s, false)
	for _, b := range discovery.Builtin() {
		key := b.GroupVersion() + " " + b.Resource
		t.Run("served builtin - "+key+" - pass", func(t *testing.T) {
			if r, ok := listed[key]; !ok || r.Kind != b.Kind || r.Namespaced != b.Namespaced {
				t.Errorf("got listed %v as %+v, want kind %s, namespaced %v", ok, r, b.Kind, b.Namespaced)
			}
			path := "/apis/" + b.GroupVersion() + "/" + b.Resource
			if b.Group == "" {
				path = "/api/v1/" + b.Resource
			}
			if rec := get(s, path, ""); rec.Code != 200 {
				t.Errorf("GET %s: got code %d, want 200: %s", path, rec.Code, rec.Body)
			}
		})
	}
	if len(listed) != len(discovery.Builtin()) {
		t.Errorf("got %d resources listed, want %d (the built-in ones, configmaps among them)", len(listed), len(discovery.Builtin()))
	}
	after := answers()
	for k, b := range before {
		if after[k] != b {
			t.Errorf("%s: got answer after the requests %s, want the one before %s", k, after[k], b)
		}
	}
	for _, path := range []string{"/apis/autoscaling/v1/horizontalpodautoscalers", "/apis/batch/v1beta1/cronjobs", "/apis/coordination.k8s.io/v1alpha2/leasecandidates"} {
		if rec := get(s, path, ""); rec.Code != 404 {
			t.Errorf("GET %s: got code %d, want 404 (not listed, not served)", path, rec.Code)
		}
	}
	if rec := get(New(configMapsHistory(t), WithReadOnly()), "/api/v1/secrets", ""); rec.Code != 404 {
		t.Errorf("read-only GET /api/v1/secrets: got code %d, want 404", rec.Code)
	}
}

// TestDiscoveryBuiltinRecorded checks the built-in resources against the
// discovery recorded from a real kube-apiserver (the shipped cassette).
// Each is listed there, in its group's preferred version, with its scope.
// A writable replay serves the recorded answer's shape. It keeps the
// resources it has no traffic of but serves from empty.
func TestDiscoveryBuiltinRecorded(t *testing.T) {
	t.Parallel()
	h := recordedDiscoveryHistory(t)
	scope := map[string]apidiscoveryv2.ResourceScope{}
	for _, p := range []string{"/api", "/apis"} {
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(h.Discovery[p], &list); err != nil {
			t.Fatalf("recorded %s: %v", p, err)
		}
		for _, g := range list.Items {
			if len(g.Versions) == 0 {
				continue
			}
			v := g.Versions[0] // the preferred one
			for _, r := range v.Resources {
				scope[history.Resource{Group: g.Name, Version: v.Version, Resource: r.Resource}.String()] = r.Scope
			}
		}
	}
	for _, b := range discovery.Builtin() {
		sc, ok := scope[b.String()]
		if !ok {
			t.Errorf("builtin - %s - pass: got it not in the recorded discovery's preferred versions, want listed", b)
		} else if (sc == apidiscoveryv2.ScopeNamespace) != b.Namespaced {
			t.Errorf("builtin - %s - pass: got namespaced %v, want the recorded scope %s", b, b.Namespaced, sc)
		}
	}
	tests := []struct {
		name     string
		recorded map[string]string
		path     string
		accept   string
		contains []string
		absent   []string
	}{
		{name: "writable discovery - recorded group version, no traffic kept in its shape - pass", recorded: map[string]string{"/apis/apps/v1": recordedAppsV1}, path: "/apis/apps/v1",
			contains: []string{`{"name":"replicasets","singularName":"replicaset","namespaced":true,"kind":"ReplicaSet","verbs":["get","list","watch"]}`, `"name":"deployments/status"`, `"name":"statefulsets"`},
			absent:   []string{"deployments/scale", "scale"}},
		{name: "writable discovery - recorded aggregated, no traffic kept in its shape - pass", recorded: map[string]string{"/apis": recordedAggApis}, path: "/apis", accept: acceptAggregated,
			contains: []string{`"resource":"jobs","responseKind":{"group":"batch","version":"v1","kind":"Job"},"scope":"Namespaced","singularResource":"job","verbs":["get","list"],"subresources":[{"subresource":"status"`, `"resource":"cronjobs"`, `"name":"coordination.k8s.io"`},
			absent:   []string{`"subresource":"scale"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := listHistory(t)
			for p, b := range tt.recorded {
				h.Discovery[p] = []byte(b)
			}
			rec := get(New(h), tt.path, tt.accept)
			if rec.Code != 200 {
				t.Fatalf("got code %d, want 200: %s", rec.Code, rec.Body)
			}
			for _, c := range tt.contains {
				if !strings.Contains(rec.Body.String(), c) {
					t.Errorf("got body %s, want it to contain %s", rec.Body, c)
				}
			}
			for _, a := range tt.absent {
				if strings.Contains(rec.Body.String(), a) {
					t.Errorf("got body %s, want no %s", rec.Body, a)
				}
			}
		})
	}
}

// TestDiscoveryBuiltinOpaque checks a writable replay of a history whose
// resourceVersions are not numbers. It lists the built-in resources it
// has no traffic of. It serves one from empty, at the newest RV it serves:
// a controller's informer of what it would create must sync. It refuses a
// write to it with 405 (opaque RVs take no writes).
func TestDiscoveryBuiltinOpaque(t *testing.T) {
	t.Parallel()
	s := New(opaqueHistory(t))
	got := listedResources(t, s, false)
	if _, ok := got["v1 secrets"]; !ok {
		t.Errorf("got no v1 secrets, want the recorded resource listed")
	}
	if _, ok := got["apps/v1 deployments"]; !ok {
		t.Errorf("got no apps/v1 deployments, want it listed (served from empty)")
	}
	rec := get(s, "/apis/apps/v1/deployments", "")
	if rec.Code != 200 {
		t.Fatalf("GET /apis/apps/v1/deployments: got code %d, want 200", rec.Code)
	}
	var a answer
	if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
		t.Fatalf("GET /apis/apps/v1/deployments: %v", err)
	}
	if a.Metadata.ResourceVersion != "r4" || len(a.Items) != 0 {
		t.Errorf("GET /apis/apps/v1/deployments: got rv %q and %d items, want rv r4 (the newest served) and none", a.Metadata.ResourceVersion, len(a.Items))
	}
	w := httptest.NewRecorder()
	s.ServeHTTP(w, httptest.NewRequest(http.MethodPost, "/apis/apps/v1/namespaces/ns/deployments",
		strings.NewReader(`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns"}}`)))
	if w.Code != http.StatusMethodNotAllowed {
		t.Errorf("POST a deployment: got code %d, want 405", w.Code)
	}
}
