package harness

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/client-go/util/flowcontrol"

	"github.com/lwreplay/lwreplay/fuzz/internal/site"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// spinningTarget is a target that loops without blocking until release is
// set, while it runs (during) or once its context is cancelled. So the
// test can end the loop once the run was given up.
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

// lockedTarget is a target whose two goroutines deadlock on a sync.Mutex
// once its context is cancelled, until release. One holds it and waits on
// a channel only release closes; the other waits for it.
func lockedTarget(release chan struct{}) Target {
	return Target{Name: "locked", Doc: "a target that deadlocks on a mutex at stop", Run: func(ctx context.Context, env *Env) error {
		<-ctx.Done()
		var mu sync.Mutex
		held := make(chan struct{})
		go func() {
			mu.Lock()
			close(held)
			<-release
			mu.Unlock()
		}()
		<-held
		mu.Lock() // waits for ever: not a wait synctest sees through
		mu.Unlock()
		return nil
	}}
}

// TestObserveLocked checks a run whose target deadlocks on a mutex is
// given up as soon as two looks at its goroutines find the same lock
// waits with nothing running. That is before the spin bound: a minute,
// far above the second or two a loaded machine takes to look twice. The
// run is reported by no-spin with the waiting goroutine's stack.
//
// Given the deadlock's site among Spec.KnownSpins, a second run is given up
// at it, KnownSpinAfter past its last look, and says so (Spin.Known).
func TestObserveLocked(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	const bound = time.Minute
	var known string // the first run's deadlock site, known to the second
	for _, name := range []string{
		"locked - a target deadlocked at stop - given up on its lock waits - fail",
		"locked - a target deadlocked at stop, a known deadlock - given up at it - fail",
	} {
		t.Run(name, func(t *testing.T) {
			release := make(chan struct{})
			defer close(release)
			var spins []string
			if known != "" {
				spins = []string{known}
			}
			obs := Observe(t, Spec{History: h, Target: lockedTarget(release), SpinBound: bound, Watchdog: time.Minute, KnownSpins: spins})
			if obs.Spin == nil || !obs.Spin.Locked {
				t.Fatalf("spin: got %+v, want the run given up locked", obs.Spin)
			}
			if obs.Spin.After >= bound {
				t.Errorf("given up after: got %v, want less than the spin bound %v (the lock waits are seen, not timed out)", obs.Spin.After, bound)
			}
			if obs.Spin.Known != known {
				t.Errorf("known: got %q, want %q", obs.Spin.Known, known)
			}
			if !strings.Contains(obs.Spin.Stack, "lockedTarget") || !strings.Contains(obs.Spin.Stack, "sync.Mutex.Lock") {
				t.Errorf("stacks: got %q, want the locked target's wait on sync.Mutex.Lock", obs.Spin.Stack)
			}
			err := oracle.Judge(obs)["no-spin"]
			if !errors.Is(err, oracle.ErrSpin) || !strings.Contains(err.Error(), "waited on a lock") {
				t.Errorf("no-spin: got %v, want %v saying the goroutines waited on a lock", err, oracle.ErrSpin)
			}
			known = site.OfStack(obs.Spin.Stack)
		})
	}
}

// lockedAcross is a target that, once its context is cancelled, holds a
// sync.Mutex across wait while another goroutine waits for it. In real
// time a wait on time ends and the lock is let go; in a synctest bubble the
// lock wait keeps the clock still, and it never ends.
func lockedAcross(name, doc string, wait func()) Target {
	return Target{Name: name, Doc: doc, Run: func(ctx context.Context, env *Env) error {
		<-ctx.Done()
		var mu sync.Mutex
		held, done := make(chan struct{}), make(chan struct{})
		go func() {
			defer close(done)
			mu.Lock()
			close(held)
			wait()
			mu.Unlock()
		}()
		<-held
		mu.Lock()
		mu.Unlock()
		<-done
		return nil
	}}
}

// lockedOnTimeTarget holds the lock across a sleep.
func lockedOnTimeTarget() Target {
	return lockedAcross("locked-on-time", "a target that sleeps holding a mutex another waits on", func() { time.Sleep(time.Second) })
}

// lockedOnThrottleTarget holds the lock across a wait in client-go's
// client-side throttle, as client-go's event broadcaster does when it
// writes an event series holding its lock.
func lockedOnThrottleTarget() Target {
	throttle := flowcontrol.NewTokenBucketRateLimiter(0.1, 1) // a token every 10 s
	return lockedAcross("locked-on-throttle", "a target that waits on a rate limiter holding a mutex another waits on", func() {
		for range 2 {
			_ = throttle.Wait(context.Background())
		}
	})
}

// TestObserveLockedOnTime checks a run whose lock wait stalls virtual time
// while the lock's holder sleeps: given up as a stall on time, not judged
// a deadlock (no-spin holds), where a holder waiting on a channel only the
// test closes is one.
func TestObserveLockedOnTime(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	release := make(chan struct{})
	defer close(release)
	tests := []struct {
		name   string
		target Target
		onTime bool
	}{
		{name: "lock wait - the holder sleeps - a stall on time, no-spin holds - pass", target: lockedOnTimeTarget(), onTime: true},
		{name: "lock wait - the holder waits on client-go's throttle - a stall on time, no-spin holds - pass", target: lockedOnThrottleTarget(), onTime: true},
		{name: "lock wait - the holder waits on a channel - a deadlock, no-spin breaks - fail", target: lockedTarget(release), onTime: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := Observe(t, Spec{History: h, Target: tc.target, SpinBound: time.Minute, Watchdog: time.Minute})
			if obs.Spin == nil || !obs.Spin.Locked || obs.Spin.OnTime != tc.onTime {
				t.Fatalf("spin: got %+v, want the run given up locked, on time %v", obs.Spin, tc.onTime)
			}
			if err := oracle.Judge(obs)["no-spin"]; (err == nil) != tc.onTime {
				t.Errorf("no-spin: got %v, want an error exactly when it is a deadlock", err)
			}
		})
	}
}

// TestObserveSpin checks a run whose target never blocks is given up after
// the spin bound, instead of hanging. It is reported by no-spin alone,
// with the spinning goroutine's stack.
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
