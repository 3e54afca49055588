package capture

import (
	"context"
	"errors"
	"reflect"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"

	"github.com/lwreplay/lwreplay/replayer"
)

func TestResolve(t *testing.T) {
	srv := replayer.New(mixedHistory(t))
	dc, err := discovery.NewDiscoveryClientForConfig(restConfigFor(srv))
	if err != nil {
		t.Fatal(err)
	}
	cm := Target{GVR: schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, Kind: "ConfigMap", Namespaced: true}
	pods := Target{GVR: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, Kind: "Pod", Namespaced: true}
	deploy := Target{GVR: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Kind: "Deployment", Namespaced: true}
	widgets := Target{GVR: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, Kind: "Widget", Namespaced: true}
	tests := []struct {
		name    string
		args    []string
		want    []Target
		wantErr error
	}{
		{"resolve - core plural - pass", []string{"pods"}, []Target{pods}, nil},
		{"resolve - core singular and short name - pass", []string{"pod", "cm"}, []Target{pods, cm}, nil},
		{"resolve - group qualified - pass", []string{"deployments.apps"}, []Target{deploy}, nil},
		{"resolve - fully qualified - pass", []string{"deployments.v1.apps"}, []Target{deploy}, nil},
		{"resolve - kind - pass", []string{"Deployment"}, []Target{deploy}, nil},
		{"resolve - custom resource and its short name - pass", []string{"widgets", "wd", "widgets.example.com"}, []Target{widgets}, nil},
		{"resolve - duplicates kept once in order - pass", []string{"cm", "pods", "configmaps"}, []Target{cm, pods}, nil},
		{"resolve - unknown resource - fail", []string{"pods", "frobs"}, nil, ErrUnknownResource},
		{"resolve - unknown group - fail", []string{"deployments.frob.io"}, nil, ErrUnknownResource},
		{"resolve - empty name - fail", []string{" "}, nil, ErrUnknownResource},
		{"resolve - resource without watch - fail", []string{"gadgets"}, nil, ErrNotWatchable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Resolve(context.Background(), memory.NewMemCacheClient(dc), tc.args)
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
