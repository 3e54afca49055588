package harness

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/workqueue"

	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// retryingTarget creates the configmap default/made once its informer has
// synced, then updates it wait later: a retry held back by a backoff, as
// controller-runtime's rate limiter holds a failing key (up to 1000 s).
func retryingTarget(wait, bound time.Duration) Target {
	return Target{Name: "retrying", Doc: "an informer that writes, then writes again after a backoff", RetryBound: bound,
		Run: func(ctx context.Context, env *Env) error {
			cs, inf, stop, err := syncedConfigMaps(ctx, env)
			if err != nil || inf == nil {
				return err
			}
			defer stop()
			cms := cs.CoreV1().ConfigMaps("default")
			made, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made"}, Data: map[string]string{"k": "1"}}, metav1.CreateOptions{})
			if err != nil {
				return err
			}
			select {
			case <-ctx.Done():
				return nil
			case <-time.After(wait):
			}
			made.Data["k"] = "2"
			if _, err := cms.Update(ctx, made, metav1.UpdateOptions{}); err != nil {
				return err
			}
			<-ctx.Done()
			return nil
		}}
}

// TestRetryBound runs a target that writes again after a backoff past the
// watchdog (2 minutes here). Its Target.RetryBound keeps the run going
// until that bound has passed since its last write, at most the bound past
// the watchdog. The end state is judged after the retry: converged and
// live hold on the update's state.
func TestRetryBound(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	tests := []struct {
		name        string
		wait, bound time.Duration
		wantWrites  int
		wantEnd     time.Duration // the run looks last at or after it, before it plus a minute
	}{
		{name: "retry bound - none, a retry 3 min on - the run ends at its watchdog without it - pass", wait: 3 * time.Minute, wantWrites: 1, wantEnd: 2 * time.Minute},
		{name: "retry bound - 4 min, a retry 3 min on - made, judged after it - pass", wait: 3 * time.Minute, bound: 4 * time.Minute, wantWrites: 2, wantEnd: 6 * time.Minute},
		{name: "retry bound - 4 min, a retry 5 min on - past the bound since the last write, not waited for - pass", wait: 5 * time.Minute, bound: 4 * time.Minute, wantWrites: 1, wantEnd: 4 * time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := Observe(t, Spec{History: h, Target: retryingTarget(tc.wait, tc.bound), Watchdog: 2 * time.Minute, FullRun: true})
			if obs == nil {
				t.Fatal("observation: got nil, want one")
			}
			if len(obs.Errors) > 0 {
				t.Fatalf("target errors: got %q, want none", obs.Errors)
			}
			if len(obs.Writes) != tc.wantWrites {
				t.Fatalf("writes: got %d (%v), want %d", len(obs.Writes), obs.Writes, tc.wantWrites)
			}
			last := obs.Requests[len(obs.Requests)-1].At
			if looked := obs.EndedAt; looked < tc.wantEnd || last > tc.wantEnd+time.Minute {
				t.Errorf("end: got the run ended at %v (last request at %v), want it looked last at %v", looked, last, tc.wantEnd)
			}
			for name, err := range oracle.Judge(obs, "converged", "live") {
				if err != nil {
					t.Errorf("%s: got %v, want held", name, err)
				}
			}
		})
	}
}

// TestRunEnd checks when a run stops looking, from its watchdog, last fault
// and live bound, and when a target with a retry bound may retry.
func TestRunEnd(t *testing.T) {
	const m = time.Minute
	tests := []struct {
		name                               string
		lastFault, retryAt, retry, wantEnd time.Duration
	}{
		{"run end - no fault, no retry bound - the watchdog - pass", -1, 20 * m, 0, 15 * m},
		{"run end - a fault at 10 min - the live bound after it - pass", 10 * m, -1, 0, 20 * m},
		{"run end - a fault at 30 min - at most twice the live bound past the watchdog - pass", 30 * m, -1, 0, 35 * m},
		{"run end - a retry due at 22 min - then - pass", -1, 22 * m, 17 * m, 22 * m},
		{"run end - a retry due before the watchdog - the watchdog - pass", -1, 11 * m, 17 * m, 15 * m},
		{"run end - a retry due at 40 min - at most the bound past the watchdog - pass", -1, 40 * m, 17 * m, 32 * m},
		{"run end - a fault at 15 min, a retry due at 32 min - then, past the watchdog plus the bound - pass", 15 * m, 32 * m, 17 * m, 32 * m},
		{"run end - a fault at 15 min, a retry due at 50 min - at most the bound past the live bound's end - pass", 15 * m, 50 * m, 17 * m, 42 * m},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := runEnd(15*m, tc.lastFault, 10*m, tc.retryAt, tc.retry); got != tc.wantEnd {
				t.Errorf("end: got %v, want %v", got, tc.wantEnd)
			}
		})
	}
}

// TestMaxDelay checks the retry bound a controller's run waits past its
// end: the most a controller's default rate limiter holds a failing key
// back, and a second.
func TestMaxDelay(t *testing.T) {
	tests := []struct {
		name string
		rl   workqueue.TypedRateLimiter[string]
		want time.Duration
	}{
		{"max delay - client-go's default controller rate limiter - 1000 s - pass", workqueue.DefaultTypedControllerRateLimiter[string](), 1000 * time.Second},
		{"max delay - exponential from 5 ms to 1 minute - 1 minute - pass", workqueue.NewTypedItemExponentialFailureRateLimiter[string](5*time.Millisecond, time.Minute), time.Minute},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := maxDelay(tc.rl); got != tc.want {
				t.Errorf("max delay: got %v, want %v", got, tc.want)
			}
		})
	}
	if got, want := ControllerRetryBound, 1000*time.Second+time.Second; got != want {
		t.Errorf("ControllerRetryBound: got %v, want %v", got, want)
	}
}
