package fuzz

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/history"
)

// pods is core v1 pods.
var pods = history.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}

// deployments is apps/v1 deployments, a resource of a named group.
var deployments = history.Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}

func TestRecordedResources(t *testing.T) {
	t.Parallel()
	expired := "../cassettes/real-configmaps-expired.yaml"
	watchList := "../cassettes/real-configmaps-pods-watchlist.yaml"
	tests := []struct {
		name    string
		paths   []string
		want    string // resource: cassettes; ...
		wantErr string // "" for none
	}{
		{name: "recorded resources - one cassette, two resources - both, in the history's order - pass",
			paths: []string{watchList}, want: fmt.Sprintf("configmaps.v1: [%s]; pods.v1: [%s]", watchList, watchList)},
		{name: "recorded resources - a cassette without pods first - pods named by the cassette that has them - pass",
			paths: []string{expired, watchList}, want: fmt.Sprintf("configmaps.v1: [%s %s]; pods.v1: [%s]", expired, watchList, watchList)},
		{name: "recorded resources - no cassette - none - pass", paths: nil, want: ""},
		{name: "recorded resources - missing file - error names it - fail",
			paths: []string{filepath.Join(t.TempDir(), "nope.yaml")}, wantErr: "nope.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := RecordedResources(tc.paths)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error: got %v, want one containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("error: got %v, want none", err)
			}
			var parts []string
			for _, r := range got {
				parts = append(parts, fmt.Sprintf("%s: %v", r.Resource, r.Cassettes))
			}
			if s := strings.Join(parts, "; "); s != tc.want {
				t.Errorf("recorded: got %q, want %q", s, tc.want)
			}
			for _, r := range got {
				if r.Resource.Kind == "" {
					t.Errorf("%s: got no kind, want the recorded one", r.Resource)
				}
			}
		})
	}
}

func TestResolveResource(t *testing.T) {
	t.Parallel()
	eventsCore := history.Resource{Version: "v1", Resource: "events", Kind: "Event", Namespaced: true}
	eventsGroup := history.Resource{Group: "events.k8s.io", Version: "v1", Resource: "events", Kind: "Event", Namespaced: true}
	recorded := []history.Resource{harness.ConfigMaps, pods, deployments, eventsCore, eventsGroup}
	tests := []struct {
		name    string
		arg     string
		want    history.Resource
		wantErr string // "" for none
	}{
		{name: "resolve - plural - pass", arg: "pods", want: pods},
		{name: "resolve - fully qualified core - pass", arg: "configmaps.v1", want: harness.ConfigMaps},
		{name: "resolve - group-qualified - pass", arg: "deployments.apps", want: deployments},
		{name: "resolve - fully qualified - pass", arg: "deployments.v1.apps", want: deployments},
		{name: "resolve - kind - pass", arg: "Deployment", want: deployments},
		{name: "resolve - singular, upper case, spaces - pass", arg: " POD ", want: pods},
		{name: "resolve - kind, group-qualified - pass", arg: "deployment.apps", want: deployments},
		{name: "resolve - ambiguous plural - candidates named - fail", arg: "events",
			wantErr: `"events" names several: events.v1, events.v1.events.k8s.io`},
		{name: "resolve - ambiguity resolved by group - pass", arg: "events.events.k8s.io", want: eventsGroup},
		{name: "resolve - not recorded - recorded ones named - fail", arg: "secrets",
			wantErr: `"secrets" (recorded: configmaps.v1, pods.v1, deployments.v1.apps, events.v1, events.v1.events.k8s.io)`},
		{name: "resolve - wrong group - fail", arg: "deployments.extensions", wantErr: "not recorded"},
		{name: "resolve - empty - fail", arg: "", wantErr: "not recorded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ResolveResource(tc.arg, recorded)
			if tc.wantErr != "" {
				if !errors.Is(err, ErrResourceNotRecorded) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error: got %v, want an ErrResourceNotRecorded containing %q", err, tc.wantErr)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("resolve %q: got %v, %v, want %v", tc.arg, got, err, tc.want)
			}
		})
	}
}

func TestCampaignResource(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		res  history.Resource
		want history.Resource
	}{
		{"campaign resource - none asked - configmaps - pass", history.Resource{}, harness.ConfigMaps},
		{"campaign resource - pods - pods, named in reports - pass", pods, pods},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := Target{Name: "forgets", Doc: "syncs at once to an empty store", Run: func(ctx context.Context, env *Env) error {
				env.Probe.SetSynced(func() bool { return true })
				env.Probe.SetStore(func() []any { return nil })
				<-ctx.Done()
				return nil
			}}
			c, err := NewCampaign(Options{Cassettes: []string{targetCassette}, Resource: tc.res, Target: target, Invariants: []string{"converged"}})
			if err != nil {
				t.Fatalf("NewCampaign: got error %v, want none", err)
			}
			if got := c.Resource(); got.ID() != tc.want.ID() {
				t.Errorf("Resource: got %v, want %v", got, tc.want)
			}
			out := c.Check(t, []byte{0, 0})
			if want := "resource: " + tc.want.String() + "\n"; !strings.Contains(out.Report, want) {
				t.Errorf("report: got\n%s\nwant it to contain %q", out.Report, want)
			}
		})
	}
}
