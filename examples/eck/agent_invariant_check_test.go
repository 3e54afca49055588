package eck

import (
	"encoding/json"
	"errors"
	"strconv"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// TestAgentVehicleMatchesSpec shows the Agent invariant on a fault-free
// run of ECK's Agent controller. It holds on the run's end state. It
// fires once the collector Agent's Deployment is deleted after the run,
// or scaled away from its spec's replicas.
func TestAgentVehicleMatchesSpec(t *testing.T) {
	obs := fuzz.FaultFreeRun(t, agentOptions(agentTarget(t)))
	deps, ok := obs.Served.Log(deployments)
	if !ok || len(deps.StateAt(deps.End())) != 1 {
		t.Fatalf("served deployments: got %v, want the collector's one", ok)
	}
	var top uint64
	for _, l := range obs.Served.Logs {
		if n, err := strconv.ParseUint(l.RVAt(l.End()), 10, 64); err == nil {
			top = max(top, n)
		}
	}
	rv := strconv.FormatUint(top+1, 10)
	dep := deps.StateAt(deps.End())[0]
	gone, err := history.WithResourceVersion(dep, rv)
	if err != nil {
		t.Fatal(err)
	}
	scaled := rescale(t, dep, 5, rv)
	tests := []struct {
		name    string
		ev      *history.Event
		wantBug bool
	}{
		{name: "agent-vehicle-matches-spec - the fault-free run's end state - pass"},
		{name: "agent-vehicle-matches-spec - an Agent's Deployment deleted - fail", ev: &history.Event{Type: history.Deleted, Object: gone, From: history.Location{Event: -1}}, wantBug: true},
		{name: "agent-vehicle-matches-spec - an Agent's Deployment scaled to 5 - fail", ev: &history.Event{Type: history.Modified, Object: scaled, From: history.Location{Event: -1}}, wantBug: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			judged := obs
			if tc.ev != nil {
				judged = fuzz.Appended(t, obs, deployments, *tc.ev)
			}
			err, why := oracle.JudgeOne(agentVehicleMatchesSpec, judged)
			if why != "" {
				t.Fatalf("got not judged: %s, want a verdict", why)
			}
			if got := errors.Is(err, ErrAgentVehicle); got != tc.wantBug {
				t.Errorf("got %v, want %v broken %v", err, ErrAgentVehicle, tc.wantBug)
			}
		})
	}
}

// rescale returns a copy of the workload o with spec.replicas n, at
// resourceVersion rv.
func rescale(t *testing.T, o *history.Object, n int, rv string) *history.Object {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(o.Raw, &m); err != nil {
		t.Fatal(err)
	}
	m["spec"].(map[string]any)["replicas"] = n
	m["metadata"].(map[string]any)["resourceVersion"] = rv
	raw, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	out, _, _, err := history.ParseObject(raw)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
