package harness

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/internal/testutil"
)

// tickingTarget is a target that wakes every millisecond of virtual time
// until its context is cancelled: a run of it lasts to the watchdog and
// looks often, at a cost in real time.
func tickingTarget() Target {
	return Target{Name: "ticking", Doc: "a target that wakes every millisecond", Run: func(ctx context.Context, env *Env) error {
		for ctx.Err() == nil {
			time.Sleep(time.Millisecond)
		}
		return nil
	}}
}

// idleTarget is a target that waits for its context: a run of it lasts to
// the watchdog, at almost no cost in real time.
func idleTarget() Target {
	return Target{Name: "idle", Doc: "a target that waits for its end", Run: func(ctx context.Context, env *Env) error {
		<-ctx.Done()
		return nil
	}}
}

// TestObserveDeadline checks a run past its Spec.Deadline (a fuzzing
// worker's input budget): it is cut short, OutOfTime, and not taken for a
// spin. One that looks ends at its next look; one that never looks is
// left DeadlineGrace later. One begun past its deadline is cut at its first
// look, however soon it would end. A run without a deadline is not cut.
func TestObserveDeadline(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	var release atomic.Bool
	defer release.Store(true)
	tests := []struct {
		name     string
		target   Target
		deadline time.Time
		watchdog time.Duration
		want     bool
	}{
		{name: "Observe - deadline passed, target busy in virtual time - cut at a look - pass", target: tickingTarget(), deadline: time.Now(), watchdog: DefaultWatchdog, want: true},
		{name: "Observe - deadline passed, target spins - left after the grace, not a spin - pass", target: spinningTarget(true, &release), deadline: time.Now(), watchdog: DefaultWatchdog, want: true},
		{name: "Observe - deadline passed before the run, target idle - cut at its first look - pass", target: idleTarget(), deadline: time.Now(), watchdog: DefaultWatchdog, want: true},
		{name: "Observe - no deadline, target busy - runs to its end - pass", target: tickingTarget(), watchdog: 10 * time.Second, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := Observe(t, Spec{History: h, Target: tc.target, SpinBound: time.Minute, Deadline: tc.deadline, Watchdog: tc.watchdog})
			if obs.OutOfTime != tc.want {
				t.Errorf("OutOfTime: got %v, want %v", obs.OutOfTime, tc.want)
			}
			if obs.Spin != nil {
				t.Errorf("Spin: got %+v, want none (a deadline is no spin)", obs.Spin)
			}
			if tc.want && obs.EndedAt >= tc.watchdog {
				t.Errorf("EndedAt: got %v, want before the watchdog %v", obs.EndedAt, tc.watchdog)
			}
		})
	}
}
