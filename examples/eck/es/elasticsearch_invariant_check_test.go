package es

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// TestNoScaleBelowCount shows the user's invariant on a fault-free run of
// ECK's Elasticsearch controller among the cluster's actors. It holds on
// the run as served. It fires once the StatefulSet is scaled from 2 to 1
// replicas, or pod 1 deleted, after the user set the count back to 2: the
// writes of elastic/cloud-on-k8s#5274.
func TestNoScaleBelowCount(t *testing.T) {
	if testing.Short() {
		t.Skip("a fault-free run of the Elasticsearch controller among actors takes seconds")
	}
	var fakes []*fakeES
	obs := fuzz.FaultFreeRun(t, options(t, func(f *fakeES) { fakes = append(fakes, f) }))
	if len(fakes) == 0 || len(fakes[0].Requests()) == 0 {
		t.Fatalf("fake elasticsearch requests: got none, want the operator's")
	}
	t.Logf("fake elasticsearch: %d requests, first %q", len(fakes[0].Requests()), fakes[0].Requests()[0])
	next := nextRV(obs.Served)
	sset := lastObject(t, obs.Served, statefulSets, "e2e-eck-es/es-es-default")
	if got := replicas(sset); got != 2 {
		t.Fatalf("statefulset es-es-default replicas at the end: got %d, want 2", got)
	}
	scaled := withReplicas(t, sset, 1, next)
	pod := lastObject(t, obs.Served, pods, "e2e-eck-es/es-es-default-1")
	gone, err := history.WithResourceVersion(pod, next)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		res     history.Resource
		ev      *history.Event
		wantBug bool
	}{
		{name: "es-no-scale-below-count - the fault-free run - pass"},
		{name: "es-no-scale-below-count - the StatefulSet scaled 2 to 1 under count 2 - fail", res: statefulSets,
			ev: &history.Event{Type: history.Modified, Object: scaled, Prev: sset, From: history.Location{Event: -1}}, wantBug: true},
		{name: "es-no-scale-below-count - pod 1 deleted under count 2 - fail", res: pods,
			ev: &history.Event{Type: history.Deleted, Object: gone, Prev: pod, From: history.Location{Event: -1}}, wantBug: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			judged := obs
			if tc.ev != nil {
				judged = fuzz.Appended(t, obs, tc.res, *tc.ev)
			}
			err, why := oracle.JudgeOne(noScaleBelowCount, judged)
			if why != "" {
				t.Fatalf("got not judged: %s, want a verdict", why)
			}
			if got := errors.Is(err, ErrScaledBelowCount); got != tc.wantBug {
				t.Errorf("got %v, want %v broken %v", err, ErrScaledBelowCount, tc.wantBug)
			}
		})
	}
}

// nextRV is a resourceVersion past every one h served.
func nextRV(h *history.History) string {
	var top uint64
	for _, l := range h.Logs {
		if n, err := strconv.ParseUint(l.RVAt(l.End()), 10, 64); err == nil {
			top = max(top, n)
		}
	}
	return strconv.FormatUint(top+1, 10)
}

// lastObject is the object at key in r's served end state.
func lastObject(t *testing.T, h *history.History, r history.Resource, key string) *history.Object {
	t.Helper()
	l, ok := h.Log(r)
	if !ok {
		t.Fatalf("served %s: got none, want a log", r.Resource)
	}
	o, ok := l.ObjectAt(key, l.End())
	if !ok {
		t.Fatalf("served %s %s: got none at the end, want one", r.Resource, key)
	}
	return o
}

// withReplicas is o with spec.replicas n at resourceVersion rv.
func withReplicas(t *testing.T, o *history.Object, n int32, rv string) *history.Object {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(o.Raw, &m); err != nil {
		t.Fatal(err)
	}
	m["spec"].(map[string]any)["replicas"] = n
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	c, _, _, err := history.ParseObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err = history.WithResourceVersion(c, rv)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
