package replayer

import (
	"encoding/json"
	"net/http/httptest"
	"reflect"
	"sort"
	"strings"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	lwdiscovery "github.com/lwreplay/lwreplay/replayer/discovery"
)

// recordedDiscoveryHistory is the shipped cassette of configmaps and
// pods. Its recorded discovery (/api and /apis, aggregated) lists every
// resource of the cluster it was recorded from.
func recordedDiscoveryHistory(t *testing.T) *history.History {
	t.Helper()
	files, err := cassette.LoadAll("../cassettes/real-configmaps-pods-watchlist.yaml")
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	h, err := history.Build(files...)
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return h
}

// recordedResourceCount counts the resources (not subresources) the
// recorded aggregated discovery answers of h list.
func recordedResourceCount(t *testing.T, h *history.History) int {
	t.Helper()
	n := 0
	for _, p := range []string{"/api", "/apis"} {
		var list apidiscoveryv2.APIGroupDiscoveryList
		if err := json.Unmarshal(h.Discovery[p], &list); err != nil {
			t.Fatalf("recorded %s: %v", p, err)
		}
		for _, g := range list.Items {
			for _, v := range g.Versions {
				n += len(v.Resources)
			}
		}
	}
	return n
}

// TestAPIResources asks discovery what kubectl api-resources asks
// (ServerPreferredResources). It wants the resources the replay serves,
// with the verbs the replayer answers, not every resource the recorded
// discovery lists. Of a read-only replay, those are the ones the history
// has traffic of. A writable one adds the built-in resources
// (discovery.Builtin), each in its recorded shape.
func TestAPIResources(t *testing.T) {
	t.Parallel()
	h := recordedDiscoveryHistory(t)
	if n := recordedResourceCount(t, h); n < 20 {
		t.Fatalf("recorded discovery lists %d resources, want a cluster's worth (20 or more) for this test to mean anything", n)
	}
	builtin := []string{}
	for _, b := range lwdiscovery.Builtin() {
		builtin = append(builtin, b.GroupVersion()+" "+b.Resource+" "+b.Kind)
	}
	sort.Strings(builtin)
	tests := []struct {
		name             string
		readOnly, legacy bool
	}{
		{name: "api-resources - read-only, aggregated discovery - pass", readOnly: true},
		{name: "api-resources - read-only, legacy discovery - pass", readOnly: true, legacy: true},
		{name: "api-resources - writable, aggregated discovery - pass"},
		{name: "api-resources - writable, legacy discovery - pass", legacy: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var opts []Option
			if tt.readOnly {
				opts = append(opts, WithReadOnly())
			}
			ts := httptest.NewServer(New(h, opts...))
			defer ts.Close()
			dc, err := discovery.NewDiscoveryClientForConfig(&rest.Config{Host: ts.URL})
			if err != nil {
				t.Fatalf("discovery client: %v", err)
			}
			dc.UseLegacyDiscovery = tt.legacy
			lists, err := dc.ServerPreferredResources()
			if err != nil {
				t.Fatalf("ServerPreferredResources: got error %v, want none", err)
			}
			var got, names []string
			for _, rl := range lists {
				for _, r := range rl.APIResources {
					if !strings.Contains(r.Name, "/") {
						got = append(got, rl.GroupVersion+" "+r.Name+" "+r.Kind+" "+strings.Join(r.Verbs, ","))
						names = append(names, rl.GroupVersion+" "+r.Name+" "+r.Kind)
					}
				}
			}
			sort.Strings(got)
			sort.Strings(names)
			if tt.readOnly {
				if want := []string{"v1 configmaps ConfigMap get,list,watch", "v1 pods Pod get,list,watch"}; !reflect.DeepEqual(got, want) {
					t.Errorf("got resources %q, want %q", got, want)
				}
			} else if !reflect.DeepEqual(names, builtin) {
				t.Errorf("got resources %q, want the built-in ones %q", names, builtin)
			}
			_, all, err := dc.ServerGroupsAndResources()
			if err != nil {
				t.Fatalf("ServerGroupsAndResources: got error %v, want none", err)
			}
			var subs []string
			for _, rl := range all {
				for _, r := range rl.APIResources {
					if strings.Contains(r.Name, "/") {
						subs = append(subs, r.Name+" "+strings.Join(r.Verbs, ","))
					}
				}
			}
			if !tt.readOnly {
				for _, s := range subs {
					if !strings.HasSuffix(s, "/status get,patch,update") && s != "namespaces/finalize update" {
						t.Errorf("got subresource %q, want status ones only, verbs get, patch, update (and namespaces/finalize update)", s)
					}
				}
			} else if want := []string{"pods/status get"}; !reflect.DeepEqual(subs, want) {
				t.Errorf("got subresources %q, want %q (pods/log, exec, ... have no answer here)", subs, want)
			}
		})
	}
}

// TestNoTrafficStatus checks the 404 a read-only replay answers for a
// resource its history does not record; TestUnrecordedStartsEmpty, what a
// writable one answers.
func TestNoTrafficStatus(t *testing.T) {
	t.Parallel()
	h := recordedDiscoveryHistory(t)
	tests := []struct {
		name    string
		path    string
		message string
		details *metav1.StatusDetails
	}{
		{name: "404 - resource only in recorded discovery - fail", path: "/apis/apps/v1/deployments",
			message: "the server could not find the requested resource: the cassette holds no list or watch traffic for deployments.v1.apps " +
				"(its recorded discovery lists it); this replay answers configmaps.v1, pods.v1",
			details: &metav1.StatusDetails{Group: "apps", Kind: "deployments"}},
		{name: "404 - core resource only in recorded discovery, namespaced watch - fail", path: "/api/v1/namespaces/default/secrets?watch=true",
			message: "the server could not find the requested resource: the cassette holds no list or watch traffic for secrets.v1 " +
				"(its recorded discovery lists it); this replay answers configmaps.v1, pods.v1",
			details: &metav1.StatusDetails{Kind: "secrets"}},
		{name: "404 - resource nothing knows - fail", path: "/apis/example.com/v1/widgets",
			message: "the server could not find the requested resource", details: &metav1.StatusDetails{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(New(h, WithReadOnly()), tt.path, "")
			if rec.Code != 404 {
				t.Fatalf("got code %d, want 404: %s", rec.Code, rec.Body)
			}
			var st metav1.Status
			if err := json.Unmarshal(rec.Body.Bytes(), &st); err != nil {
				t.Fatalf("got body %s, want a Status: %v", rec.Body, err)
			}
			if st.Reason != metav1.StatusReasonNotFound || st.Message != tt.message || !reflect.DeepEqual(st.Details, tt.details) {
				t.Errorf("got reason %s, message %q, details %+v; want NotFound, %q, %+v", st.Reason, st.Message, st.Details, tt.message, tt.details)
			}
		})
	}
}

// TestUnrecordedStartsEmpty checks that a replay taking writes (the
// default) serves a resource its history does not record, when it knows
// the resource. It serves it as one with no objects yet: an empty LIST
// whose resourceVersion is the newest served. An unknown resource still
// 404s.
func TestUnrecordedStartsEmpty(t *testing.T) {
	t.Parallel()
	h := recordedDiscoveryHistory(t)
	tests := []struct {
		name, path string
		wantCode   int
	}{
		{name: "unrecorded - a built-in kind of client-go's scheme - empty list - pass", path: "/apis/apps/v1/namespaces/default/deployments", wantCode: 200},
		{name: "unrecorded - a core kind, all namespaces - empty list - pass", path: "/api/v1/secrets", wantCode: 200},
		{name: "unrecorded - a resource nothing knows - 404 - fail", path: "/apis/example.com/v1/widgets", wantCode: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := get(New(h), tt.path, "")
			if rec.Code != tt.wantCode {
				t.Fatalf("got code %d, want %d: %s", rec.Code, tt.wantCode, rec.Body)
			}
			if tt.wantCode != 200 {
				return
			}
			var list struct {
				Metadata struct {
					ResourceVersion string `json:"resourceVersion"`
				} `json:"metadata"`
				Items []json.RawMessage `json:"items"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &list); err != nil || len(list.Items) != 0 || list.Metadata.ResourceVersion == "" {
				t.Errorf("got body %s (%v), want an empty list at a resourceVersion", rec.Body, err)
			}
		})
	}
}
