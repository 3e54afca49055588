package discovery

import (
	"strings"
	"testing"

	cgdiscovery "k8s.io/client-go/discovery"

	"github.com/lwreplay/lwreplay/history"
)

const acceptV2beta1 = "application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList,application/json"

func TestWantsAggregated(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		accept string
		want   bool
	}{
		{name: "accept - client-go default - pass", accept: cgdiscovery.AcceptV2 + "," + cgdiscovery.AcceptV1, want: true},
		{name: "accept - no peer profile first - pass", accept: cgdiscovery.AcceptV2NoPeer + "," + cgdiscovery.AcceptV2 + "," + cgdiscovery.AcceptV1, want: true},
		{name: "accept - legacy only - pass", accept: cgdiscovery.AcceptV1, want: false},
		{name: "accept - v2beta1 then legacy - pass", accept: acceptV2beta1, want: false},
		{name: "accept - protobuf aggregated then JSON aggregated - pass", accept: "application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList," + cgdiscovery.AcceptV2, want: true},
		{name: "accept - empty - pass", accept: "", want: false},
		{name: "accept - malformed - pass", accept: ";;;", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := wantsAggregated(tt.accept); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

// served are the resources the tests' replay serves.
var served = []history.Resource{
	{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true},
	{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true},
}

// recordedJobs is a recorded answer listing a resource the replay does
// not serve.
const recordedJobs = `{"kind":"APIResourceList","apiVersion":"v1","groupVersion":"batch/v1","resources":[{"name":"jobs","singularName":"job","namespaced":true,"kind":"Job","verbs":["get","list","watch"]}]}`

func TestAnswer(t *testing.T) {
	t.Parallel()
	d := New(map[string][]byte{"/apis/batch/v1": []byte(recordedJobs)}, served, "v1.36.4")
	tests := []struct {
		name, path, accept string
		ok                 bool
		contentType        string
		vary               bool
		contains           []string // parts of the body
	}{
		{name: "answer - version built from gitVersion - pass", path: "/version", ok: true, contentType: "application/json",
			contains: []string{`"gitVersion":"v1.36.4"`, `"minor":"36"`}},
		{name: "answer - api legacy, the client's host - pass", path: "/api", accept: "application/json", ok: true, contentType: "application/json",
			contains: []string{`"kind":"APIVersions"`, `"serverAddress":"replay:443"`}},
		{name: "answer - apis aggregated - varies with Accept - pass", path: "/apis", accept: cgdiscovery.AcceptV2, ok: true, contentType: aggregatedContentType, vary: true,
			contains: []string{`"resource":"deployments"`}},
		{name: "answer - group version with a trailing slash - pass", path: "/apis/apps/v1/", ok: true, contentType: "application/json",
			contains: []string{`"name":"deployments"`, `"verbs":["get","list","watch"]`}},
		{name: "answer - group version recorded, none of it served - fail", path: "/apis/batch/v1"},
		{name: "answer - not a discovery path - fail", path: "/healthz"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, ok := d.Answer(tt.path, tt.accept, "replay:443")
			if ok != tt.ok {
				t.Fatalf("ok: got %v, want %v", ok, tt.ok)
			}
			if a.ContentType != tt.contentType || a.VaryAccept != tt.vary {
				t.Errorf("got content type %q, vary %v, want %q, %v", a.ContentType, a.VaryAccept, tt.contentType, tt.vary)
			}
			for _, c := range tt.contains {
				if !strings.Contains(string(a.Body), c) {
					t.Errorf("got body %s, want it to contain %s", a.Body, c)
				}
			}
		})
	}
}

func TestLists(t *testing.T) {
	t.Parallel()
	d := New(map[string][]byte{"/apis/batch/v1": []byte(recordedJobs)}, served, "v1.37.2")
	tests := []struct {
		name string
		res  history.Resource
		want bool
	}{
		{name: "lists - a served resource - pass", res: served[1], want: true},
		{name: "lists - only in recorded discovery - pass", res: history.Resource{Group: "batch", Version: "v1", Resource: "jobs"}, want: true},
		{name: "lists - a resource nothing knows - fail", res: history.Resource{Group: "example.com", Version: "v1", Resource: "widgets"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := d.Lists(tt.res); got != tt.want {
				t.Errorf("Lists(%s): got %v, want %v", tt.res, got, tt.want)
			}
		})
	}
}
