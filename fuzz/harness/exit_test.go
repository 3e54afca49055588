package harness

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// exitingTarget is annotatingTarget whose first instance returns err 5 s
// after it starts, as an operator's main exits when its manager's caches
// did not sync in time.
func exitingTarget(container bool, err error) Target {
	return exitingTimes(container, err, 1)
}

// exitingTimes is exitingTarget whose first n instances exit.
func exitingTimes(container bool, err error, n int32) Target {
	var runs atomic.Int32
	return Target{Name: "exits", Doc: "an annotating target whose first Runs return an error after 5 s", Container: container,
		Run: func(ctx context.Context, env *Env) error {
			if runs.Add(1) <= n {
				select {
				case <-time.After(5 * time.Second):
					return err
				case <-ctx.Done():
					return nil
				}
			}
			return annotatingTarget().Run(ctx, env)
		}}
}

// failsSetupOnRestart is exitingTarget whose second instance fails its
// setup with setup: the apiserver refused the connections of its
// discovery.
func failsSetupOnRestart(exit, setup error) Target {
	var runs atomic.Int32
	return Target{Name: "exits-then-fails-setup", Doc: "an annotating target whose first Run exits after 5 s and whose second fails its setup", Container: true,
		Run: func(ctx context.Context, env *Env) error {
			switch runs.Add(1) {
			case 1:
				select {
				case <-time.After(5 * time.Second):
					return exit
				case <-ctx.Done():
					return nil
				}
			case 2:
				return setup
			}
			return annotatingTarget().Run(ctx, env)
		}}
}

// TestContainerExit runs a target whose first Run returns an error. As a
// Pod's container (Target.Container), it is restarted after the kubelet's
// first backoff (10 s) and every invariant holds. One that exits every
// time is restarted after 10, 20, 40 s, until the run ends. Without the flag, or
// with a setup error (ErrTarget) of its first instance, its run ends with it,
// as before. A restarted instance's setup error is an exit: an operator's main
// whose discovery met a refused connection exits, and the kubelet restarts it.
func TestContainerExit(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	exit := errors.New("failed to wait for caches to sync: timed out")
	refused := fmt.Errorf("%w: failed to get server groups: connect: connection refused", ErrTarget)
	tests := []struct {
		name       string
		target     Target
		wantExits  []time.Duration // when it exited
		wantAfter  []time.Duration // when it restarted (-1: the run ended first)
		wantErrs   []error         // each exit's error; nil: exit for every one
		wantBroken []string        // invariants that fire
	}{
		{name: "restart - target exits with error - pass", target: exitingTarget(true, exit),
			wantExits: []time.Duration{5 * time.Second}, wantAfter: []time.Duration{15 * time.Second}},
		{name: "restart - target exits every time - backoff 10, 20, 40 s, then the run ends, converged - fail", target: exitingTimes(true, exit, 100),
			wantExits: []time.Duration{5 * time.Second, 20 * time.Second, 45 * time.Second, 90 * time.Second},
			wantAfter: []time.Duration{15 * time.Second, 40 * time.Second, 85 * time.Second, -1}, wantBroken: []string{"converged"}},
		{name: "restart - target exits with error, without the flag - not restarted, clean-stop and converged - fail",
			target: exitingTarget(false, exit), wantBroken: []string{"clean-stop", "converged"}},
		{name: "restart - target fails its setup (ErrTarget) - not restarted, clean-stop and converged - fail",
			target: exitingTarget(true, fmt.Errorf("%w: no scheme", ErrTarget)), wantBroken: []string{"clean-stop", "converged"}},
		{name: "restart - its restarted instance fails its setup - restarted again after 20 s - pass", target: failsSetupOnRestart(exit, refused),
			wantExits: []time.Duration{5 * time.Second, 15 * time.Second}, wantAfter: []time.Duration{15 * time.Second, 35 * time.Second},
			wantErrs: []error{exit, refused}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := Observe(t, Spec{History: h, Plan: faults.Plan{}, Target: tc.target, Watchdog: 2 * time.Minute})
			if obs == nil {
				t.Fatal("observation: got nil, want one")
			}
			if len(obs.Exits) != len(tc.wantExits) {
				t.Fatalf("exits: got %v, want at %v", obs.Exits, tc.wantExits)
			}
			for i, e := range obs.Exits {
				want := exit
				if tc.wantErrs != nil {
					want = tc.wantErrs[i]
				}
				if e.At != tc.wantExits[i] || e.RestartedAt != tc.wantAfter[i] || e.Err != want.Error() {
					t.Errorf("exit %d: got %+v, want at %v, restarted at %v, error %q", i, e, tc.wantExits[i], tc.wantAfter[i], want)
				}
			}
			if len(tc.wantBroken) == 0 && obs.SyncedAt < obs.Exits[0].RestartedAt {
				t.Errorf("synced at: got %v, want at or after the restart at %v", obs.SyncedAt, obs.Exits[0].RestartedAt)
			}
			results := oracle.Judge(obs)
			for _, name := range tc.wantBroken {
				if results[name] == nil {
					t.Errorf("%s: got it to hold, want it to fire", name)
				}
			}
			if err := results["clean-stop"]; len(obs.Exits) > 0 && err != nil {
				t.Errorf("clean-stop: got %v, want it to hold (an exit is no target error)", err)
			}
			if len(tc.wantBroken) > 0 {
				return
			}
			for name, err := range results {
				if err != nil && !errors.Is(err, oracle.ErrNotJudged) {
					t.Errorf("%s: got %v, want it to hold", name, err)
				}
			}
		})
	}
}

// TestContainerBackoff checks the kubelet's restart backoff: 10 s,
// doubling at each exit, at most 5 minutes.
func TestContainerBackoff(t *testing.T) {
	tests := []struct {
		name  string
		exits int
		want  time.Duration
	}{
		{name: "backoff - first exit - 10s - pass", exits: 0, want: 10 * time.Second},
		{name: "backoff - second exit - 20s - pass", exits: 1, want: 20 * time.Second},
		{name: "backoff - fifth exit - 160s - pass", exits: 4, want: 160 * time.Second},
		{name: "backoff - sixth exit - capped at 5m - pass", exits: 5, want: 5 * time.Minute},
		{name: "backoff - tenth exit - capped at 5m - pass", exits: 9, want: 5 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := containerBackoff(tc.exits); got != tc.want {
				t.Errorf("backoff after %d exits: got %v, want %v", tc.exits, got, tc.want)
			}
		})
	}
}
