package eck

import (
	"errors"
	"strconv"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// TestVehicleMatchesSpec shows the example's invariant on a fault-free run
// of ECK's Beat controller. It holds on the run's end state. It fires once
// a Beat's workload is deleted after the run: a Deployment the uptime Beat
// asks for, gone.
func TestVehicleMatchesSpec(t *testing.T) {
	obs := fuzz.FaultFreeRun(t, options(target(t)))
	deps, ok := obs.Served.Log(deployments)
	if !ok || len(deps.StateAt(deps.End())) == 0 {
		t.Fatalf("served deployments: got none, want the operator's")
	}
	next := func() string {
		var top uint64
		for _, l := range obs.Served.Logs {
			if n, err := strconv.ParseUint(l.RVAt(l.End()), 10, 64); err == nil {
				top = max(top, n)
			}
		}
		return strconv.FormatUint(top+1, 10)
	}
	dep := deps.StateAt(deps.End())[0]
	gone, err := history.WithResourceVersion(dep, next())
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		res     history.Resource
		ev      *history.Event
		wantBug bool
	}{
		{name: "beat-vehicle-matches-spec - the fault-free run's end state - pass"},
		{name: "beat-vehicle-matches-spec - a Beat's Deployment deleted - fail", res: deployments, ev: &history.Event{Type: history.Deleted, Object: gone, From: history.Location{Event: -1}}, wantBug: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			judged := obs
			if tc.ev != nil {
				judged = fuzz.Appended(t, obs, tc.res, *tc.ev)
			}
			err, why := oracle.JudgeOne(vehicleMatchesSpec, judged)
			if why != "" {
				t.Fatalf("got not judged: %s, want a verdict", why)
			}
			if got := errors.Is(err, ErrVehicle); got != tc.wantBug {
				t.Errorf("got %v, want %v broken %v", err, ErrVehicle, tc.wantBug)
			}
		})
	}
}
