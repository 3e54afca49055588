package crtarget

import (
	"testing"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// TestMaxDelay checks the retry bound a crtarget run waits past its
// watchdog: the most a controller's default rate limiter holds a failing
// key back, and a second.
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
	if got, want := Target("t", "a target", nil).RetryBound, 1000*time.Second+time.Second; got != want {
		t.Errorf("Target's retry bound: got %v, want %v", got, want)
	}
}
