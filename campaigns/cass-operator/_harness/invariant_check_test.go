package cassharness

import (
	"errors"
	"strconv"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// TestLiveClaimsKept shows the user's invariant on a fault-free run of
// the operator. It holds: the operator deletes the first datacenter's
// claims while that datacenter is being deleted. It fires once a claim of
// the recreated, live datacenter is deleted by the target after the run.
func TestLiveClaimsKept(t *testing.T) {
	obs := fuzz.FaultFreeRun(t, options(target(t)))
	pl, ok := obs.Served.Log(pvcs)
	if !ok {
		t.Fatal("served claims: got none, want the user's")
	}
	byTarget := 0
	for _, e := range pl.Events {
		if e.Type == history.Deleted && e.ByTarget() {
			byTarget++
		}
	}
	if byTarget == 0 {
		t.Fatalf("claims the operator deleted in the fault-free run: got 0, want the first datacenter's")
	}
	live := pl.StateAt(pl.End())
	if len(live) == 0 {
		t.Fatal("claims at the end: got none, want the recreated datacenter's")
	}
	var top uint64
	for _, l := range obs.Served.Logs {
		if n, err := strconv.ParseUint(l.RVAt(l.End()), 10, 64); err == nil {
			top = max(top, n)
		}
	}
	gone, err := history.WithResourceVersion(live[0], strconv.FormatUint(top+1, 10))
	if err != nil {
		t.Fatal(err)
	}
	// A target's event: From names no recorded file (history.Location's
	// Target mark, as the replay sets it for the target's writes).
	byTargetDelete := history.Event{Type: history.Deleted, Object: gone, Prev: live[0], From: targetLocation(t, pl)}
	tests := []struct {
		name    string
		ev      *history.Event
		wantBug bool
	}{
		{name: "live-datacenter-claims-kept - the fault-free run - pass"},
		{name: "live-datacenter-claims-kept - a live datacenter's claim deleted by the operator - fail", ev: &byTargetDelete, wantBug: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			judged := obs
			if tc.ev != nil {
				judged = fuzz.Appended(t, obs, pvcs, *tc.ev)
			}
			err, why := oracle.JudgeOne(liveClaimsKept, judged)
			if why != "" {
				t.Fatalf("got not judged: %s, want a verdict", why)
			}
			if got := errors.Is(err, ErrLiveClaimDeleted); got != tc.wantBug {
				t.Errorf("got %v, want %v broken %v", err, ErrLiveClaimDeleted, tc.wantBug)
			}
		})
	}
}

// targetLocation is the From of an event of the target's own writes in l.
func targetLocation(t *testing.T, l *history.Log) history.Location {
	for _, e := range l.Events {
		if e.ByTarget() {
			return e.From
		}
	}
	t.Fatal("no event of the target's in the log")
	return history.Location{}
}
