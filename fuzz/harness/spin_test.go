package harness

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// spinningTarget is a target that loops without blocking — while it runs
// (during) or once its context is cancelled — until release is set, so
// that the test can end the loop once the run was given up.
func spinningTarget(during bool, release *atomic.Bool) Target {
	return Target{Name: "spinning", Doc: "a target that loops without blocking", Run: func(ctx context.Context, env *Env) error {
		if !during {
			<-ctx.Done()
		}
		for !release.Load() {
		}
		return nil
	}}
}

// TestObserveSpin checks a run whose target never blocks is given up
// after the spin bound and reported by no-spin alone, with the spinning
// goroutine's stack, instead of hanging.
func TestObserveSpin(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	tests := []struct {
		name     string
		during   bool
		stopping bool
	}{
		{name: "spin - a target that loops without blocking once stopped - given up, no-spin - fail", stopping: true},
		{name: "spin - a target that loops without blocking while it runs - given up, no-spin - fail", during: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var release atomic.Bool
			defer release.Store(true) // the loop ends, and with it the bubble
			obs := Observe(t, Spec{History: h, Target: spinningTarget(tc.during, &release), SpinBound: time.Second, Watchdog: time.Minute})
			if obs.Spin == nil {
				t.Fatalf("got no spin, want the run given up spinning")
			}
			if obs.Spin.Stopping != tc.stopping || obs.Spin.After < time.Second {
				t.Errorf("got stopping %v after %v, want stopping %v after at least 1s", obs.Spin.Stopping, obs.Spin.After, tc.stopping)
			}
			if !strings.Contains(obs.Spin.Stack, "spinningTarget") {
				t.Errorf("got stacks %q, want the spinning target's", obs.Spin.Stack)
			}
			results, notJudged := oracle.JudgeNames(obs, nil)
			if !errors.Is(results["no-spin"], oracle.ErrSpin) {
				t.Errorf("no-spin: got %v, want %v", results["no-spin"], oracle.ErrSpin)
			}
			for name, err := range results {
				if name != "no-spin" && (err != nil || notJudged[name] == "") {
					t.Errorf("%s: got %v (not judged: %q), want it not judged", name, err, notJudged[name])
				}
			}
		})
	}
}
