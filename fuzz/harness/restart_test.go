package harness

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// TestGracefulRestart runs annotatingTarget under graceful-restart on
// both client paths. It is stopped while its cache syncs (at its first
// LIST or WatchList), and after it has synced. It checks that:
//   - the fault fires once;
//   - the stopped instance returns;
//   - a fresh instance starts and syncs;
//   - every configmap ends annotated by exactly one stored update;
//   - every invariant holds.
//
// A target that does not return when stopped breaks clean-stop.
func TestGracefulRestart(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	hangs := Target{Name: "hangs-on-stop", Doc: "a target whose Run never returns", Run: func(ctx context.Context, env *Env) error {
		if err := annotatingTarget().Run(ctx, env); err != nil {
			return err
		}
		<-make(chan struct{}) // never returns once stopped: the planted bug
		return nil
	}}
	tests := []struct {
		name        string
		plan        string
		target      Target
		watchList   bool
		wantStopped bool // it returns when stopped
	}{
		{name: "graceful restart - at the first LIST, while syncing - restarted, every configmap annotated once - pass", plan: "graceful-restart:list=1",
			target: annotatingTarget(), wantStopped: true},
		{name: "graceful restart - at the WatchList, while syncing - restarted, every configmap annotated once - pass", plan: "graceful-restart:watch=1",
			target: annotatingTarget(), watchList: true, wantStopped: true},
		{name: "graceful restart - at the watch after the LIST, synced - restarted, every configmap annotated once - pass", plan: "graceful-restart:watch=1",
			target: annotatingTarget(), wantStopped: true},
		{name: "graceful restart - a target that never returns - clean-stop - fail", plan: "graceful-restart:watch=1", target: hangs},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := faults.ParseText(tc.plan)
			if err != nil {
				t.Fatalf("plan %q: got %v, want none", tc.plan, err)
			}
			obs := Observe(t, Spec{History: h, Plan: plan, Target: tc.target, WatchList: tc.watchList, Watchdog: 2 * time.Minute})
			if obs == nil {
				t.Fatal("observation: got nil, want one")
			}
			if len(obs.Restarts) != 1 || len(obs.Crashes) != 0 {
				t.Fatalf("restarts, crashes: got %v, %v, want one restart, no crash (fired %v)", obs.Restarts, obs.Crashes, obs.Fired)
			}
			if obs.SyncedAt < obs.Restarts[0] {
				t.Errorf("synced at: got %v, want at or after the restart at %v (the fresh instance's sync)", obs.SyncedAt, obs.Restarts[0])
			}
			updates := map[string]int{}
			for _, w := range obs.Writes {
				if w.Stored() {
					updates[w.Key]++
				}
			}
			final := obs.TruthLog.StateAt(obs.TruthLog.End())
			for _, o := range final {
				if n := updates[o.Key()]; n != 1 {
					t.Errorf("stored updates of %s: got %d, want 1", o.Key(), n)
				}
			}
			results := oracle.Judge(obs)
			if err := results["clean-stop"]; tc.wantStopped == (err != nil) {
				t.Errorf("clean-stop: got %v, want it to fail %v (Run did not return when stopped)", err, !tc.wantStopped)
			}
			for name, err := range results {
				if name != "clean-stop" && err != nil && !errors.Is(err, oracle.ErrNotJudged) {
					t.Errorf("%s: got %v, want it to hold", name, err)
				}
			}
		})
	}
}
