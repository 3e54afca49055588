package capture

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"

	"github.com/lwreplay/lwreplay/replayer"
)

// recordedGroup answers discovery of example.com/v1 with the answer
// testdata/widgets.yaml recorded. That answer lists gadgets, a
// resource that cannot be watched. (The replayer's discovery lists
// only what it can answer.) It answers every other request with the
// replayer.
type recordedGroup struct {
	rt   http.RoundTripper
	body []byte
}

func (g recordedGroup) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Path != "/apis/example.com/v1" {
		return g.rt.RoundTrip(req)
	}
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"application/json"}},
		Body: io.NopCloser(bytes.NewReader(g.body)), Request: req}, nil
}

func TestResolve(t *testing.T) {
	h := mixedHistory(t)
	srv := replayer.New(h)
	dc, err := discovery.NewDiscoveryClientForConfig(restConfigFor(srv))
	if err != nil {
		t.Fatal(err)
	}
	cfg := restConfigFor(srv)
	cfg.Transport = recordedGroup{rt: cfg.Transport, body: h.Discovery["/apis/example.com/v1"]}
	recorded, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	recorded.UseLegacyDiscovery = true
	cm := Target{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}
	pods := Target{GVR: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Kind: "Pod", Namespaced: true}
	deploy := Target{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Kind: "Deployment", Namespaced: true}
	widgets := Target{GVR: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, Kind: "Widget", Namespaced: true}
	tests := []struct {
		name     string
		args     []string
		want     []Target
		wantErr  error
		recorded bool // ask the recorded discovery of example.com/v1
	}{
		{"resolve - core plural - pass", []string{"pods"}, []Target{pods}, nil, false},
		{"resolve - core singular and short name - pass", []string{"pod", "cm"}, []Target{pods, cm}, nil, false},
		{"resolve - group qualified - pass", []string{"deployments.apps"}, []Target{deploy}, nil, false},
		{"resolve - fully qualified - pass", []string{"deployments.v1.apps"}, []Target{deploy}, nil, false},
		{"resolve - kind - pass", []string{"Deployment"}, []Target{deploy}, nil, false},
		{"resolve - custom resource and its short name - pass", []string{"widgets", "wd", "widgets.example.com"}, []Target{widgets}, nil, false},
		{"resolve - duplicates kept once in order - pass", []string{"cm", "pods", "configmaps"}, []Target{cm, pods}, nil, false},
		{"resolve - unknown resource - fail", []string{"pods", "frobs"}, nil, ErrUnknownResource, false},
		{"resolve - unknown group - fail", []string{"deployments.frob.io"}, nil, ErrUnknownResource, false},
		{"resolve - empty name - fail", []string{" "}, nil, ErrUnknownResource, false},
		{"resolve - resource without watch - fail", []string{"gadgets"}, nil, ErrNotWatchable, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			client := dc
			if tc.recorded {
				client = recorded
			}
			got, err := Resolve(context.Background(), memory.NewMemCacheClient(client), tc.args)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("error: got %v, want %v", err, tc.wantErr)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("targets: got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestTargetString(t *testing.T) {
	tests := []struct {
		name   string
		target Target
		want   string
	}{
		{"target string - core group - pass", Target{GVR: schema.GroupVersionResource{Version: "v1", Resource: "pods"}}, "pods.v1"},
		{"target string - named group - pass", Target{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}}, "deployments.v1.apps"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.target.String(); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
