package widgets

import (
	"errors"
	"strconv"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// TestConfigMapOutlivesWidget shows the example's invariant judging the
// reconciler's deletes alone. It appends a delete of a live widget's
// ConfigMap to the served history of a fault-free run of the correct
// reconciler. That breaks it when the reconciler made the delete. It
// holds when another actor did: a recreate fault, a user (a real cluster
// lets them).
func TestConfigMapOutlivesWidget(t *testing.T) {
	obs := fuzz.FaultFreeRun(t, options(target(t, "widgets")))
	cms, ok := obs.Served.Log(configMaps)
	if !ok || len(cms.StateAt(cms.End())) == 0 {
		t.Fatalf("served configmaps: got none, want the reconciler's")
	}
	live := cms.StateAt(cms.End())[0] // a ConfigMap of a widget that lives at the end
	rv, err := strconv.ParseUint(cms.RVAt(cms.End()), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	ws, _ := obs.Served.Log(widgets)
	if wrv, err := strconv.ParseUint(ws.RVAt(ws.End()), 10, 64); err == nil {
		rv = max(rv, wrv)
	}
	gone, err := history.WithResourceVersion(live, strconv.FormatUint(rv+1, 10))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		from    string // the deleting event's Location File
		wantBug bool
	}{
		{name: "configmap-outlives-widget - the reconciler deletes a live widget's configmap - fail", from: history.TargetWrite, wantBug: true},
		{name: "configmap-outlives-widget - another actor deletes it - pass", from: ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			judged := fuzz.Appended(t, obs, configMaps, history.Event{Type: history.Deleted, Object: gone, From: history.Location{File: tc.from, Event: -1}})
			err, why := oracle.JudgeOne(configMapOutlivesWidget, judged)
			if why != "" {
				t.Fatalf("got not judged: %s, want a verdict", why)
			}
			if got := errors.Is(err, ErrLiveWidgetConfigMap); got != tc.wantBug {
				t.Errorf("got %v, want %v broken %v", err, ErrLiveWidgetConfigMap, tc.wantBug)
			}
		})
	}
}
