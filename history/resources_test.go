package history_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

func TestBuild_GoodFixture(t *testing.T) {
	h, err := loadAndBuild("testdata/good.yaml")
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	if len(h.Logs) != 1 {
		t.Fatalf("Logs: got %d, want 1", len(h.Logs))
	}
	l := h.Logs[0]
	at := func(i int) string {
		if i >= len(l.Events) {
			return "none"
		}
		return l.Events[i].At.String()
	}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"files - pass", fmt.Sprint(h.Files), "[testdata/good.yaml]"},
		{"span - first request to last answer - pass", h.Span, 3 * time.Second},
		{"discovery recorded - pass", len(h.Discovery["/api/v1"]) > 0, true},
		{"kind from discovery - pass", l.Resource.Kind, "ConfigMap"},
		{"namespaced from discovery - pass", l.Resource.Namespaced, true},
		{"initial from two pages - pass", objs(l.Initial), "ns/a@5 ns/b@7"},
		{"events with inferred ADDED - pass", events(l.Events), "MODIFIED ns/a@11; DELETED ns/b@12; ADDED ns/c@18"},
		{"last RV from the relist - pass", l.LastRV(), "20"},
		{"first event arrival - pass", at(0), "1s"},
		{"second event arrival - pass", at(1), "1.25s"},
		{"inferred event arrival unknown - pass", at(2), "-1ns"},
		{"pages and streams counted - pass", fmt.Sprint(l.Lists, l.Watches), "3 2"},
		{"watch ERROR recorded - pass", len(l.Errors), 1},
		{"ERROR reason - pass", l.Errors[0].Reason, "Expired"},
		{"ERROR code - pass", l.Errors[0].Code, 410},
		{"ERROR location - pass", l.Errors[0].From.String(), "testdata/good.yaml: interaction 4: event 0"},
		{"marks: list, bookmark, relist - pass", fmt.Sprint(len(l.Marks)), "3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

// podItem returns a pod as a list item carries it.
func podItem(ns, name, rv string) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":%q,"resourceVersion":%q},"spec":{}}`, name, ns, rv)
}

func TestBuild_Resources(t *testing.T) {
	nodes := cassette.Interaction{Method: "GET", URL: host + "/api/v1/nodes?resourceVersion=0", Code: 200,
		Body: []byte(`{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"30"},"items":[{"metadata":{"name":"n1","resourceVersion":"3"}}]}`)}
	pods := cassette.Interaction{Method: "GET", URL: host + "/api/v1/pods?resourceVersion=0", Code: 200,
		Body: []byte(`{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"31"},"items":[` + podItem("x", "p", "4") + `]}`)}
	deploys := cassette.Interaction{Method: "GET", URL: host + "/apis/apps/v1/namespaces/x/deployments?resourceVersion=0", Code: 200,
		Body: []byte(`{"kind":"DeploymentList","apiVersion":"apps/v1","metadata":{"resourceVersion":"32"},"items":[]}`)}
	forbidden := cassette.Interaction{Method: "GET", URL: host + "/api/v1/secrets?resourceVersion=0", Code: 403,
		Body: []byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","reason":"Forbidden","message":"no","code":403}`)}
	write := cassette.Interaction{Method: "POST", URL: host + "/api/v1/namespaces/x/configmaps", Code: 201, Body: []byte(`{}`)}
	single := get("/api/v1/namespaces/ns/configmaps/a", cm("a", "5"))
	health := cassette.Interaction{Method: "GET", URL: host + "/healthz", Code: 500, Body: []byte("not ok")}
	h, err := history.Build(file("r.yaml", forbidden, nodes, write, single, pods, health, deploys))
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	var got []string
	for _, l := range h.Logs {
		got = append(got, fmt.Sprintf("%s %s namespaced=%v start=%s n=%d", l.Resource, l.Resource.Kind, l.Resource.Namespaced, l.StartRV, len(l.Initial)))
	}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"logs in order of appearance - pass", fmt.Sprint(len(got)), "3"},
		{"cluster-scoped - pass", got[0], "nodes.v1 Node namespaced=false start=30 n=1"},
		{"namespaced from items - pass", got[1], "pods.v1 Pod namespaced=true start=31 n=1"},
		{"namespaced from the path - pass", got[2], "deployments.v1.apps Deployment namespaced=true start=32 n=0"},
		{"errors of a resource never listed - pass", fmt.Sprint(len(h.Errors)), "2"},
		{"forbidden kept - pass", h.Errors[0].Reason, "Forbidden"},
		{"non-resource error kept - pass", fmt.Sprint(h.Errors[1].Code), "500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}
