package harness

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// stopTimedTarget is an informer of configmaps that writes to *took how
// long, in virtual time, its Run took to return once its context was
// cancelled.
func stopTimedTarget(took *time.Duration) Target {
	return Target{Name: "stop-timed", Doc: "an informer that times its own stop", Run: func(ctx context.Context, env *Env) error {
		lw, err := env.ListerWatcher(&corev1.ConfigMap{})
		if err != nil {
			return err
		}
		inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
		var stoppedAt time.Time
		go func() {
			<-ctx.Done()
			stoppedAt = time.Now()
		}()
		inf.RunWithContext(ctx)
		*took = time.Since(stoppedAt)
		return nil
	}}
}

// TestWatchListBackoffIgnoresStop shows client-go's Reflector.watchList
// waiting out its backoff after it was stopped. While every watch is
// answered 429 (API Priority and Fairness shedding load: legal, and
// persistent in an overload), the reflector retries with backoff, 0.8 s
// doubling to [30, 60) s. On the LIST+WATCH path the wait selects on the
// stop (reflector.go's watch loop: "case <-stopCh: return nil"). The
// WatchList path's does not (v0.35.10 reflector.go:725, v0.36 and v0.37
// :817: "<-r.clock.After(r.delayHandler())"): a stopped informer runs on
// until the delay ends. A controller-runtime manager gives its runnables
// 30 s (GracefulShutdownTimeout), so its Start then fails with "failed
// waiting for all runnables to end within grace period of 30s".
func TestWatchListBackoffIgnoresStop(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	plan, err := faults.ParseText("http-error:code=429,from=0")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		watchList bool
		late      bool // the stop waits out a backoff
	}{
		{name: "watchlist backoff - WatchList, every watch 429 - the stop waits out the backoff - fail", watchList: true, late: true},
		{name: "watchlist backoff - LIST+WATCH, every watch 429 - stops at once - pass", watchList: false, late: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var took time.Duration
			Observe(t, Spec{History: h, Target: stopTimedTarget(&took), Plan: plan, WatchList: tc.watchList, Watchdog: 5 * time.Minute})
			t.Logf("took %v", took)
			if late := took >= time.Second; late != tc.late {
				t.Errorf("Run returned %v (virtual) after its stop; want a wait of a second or more: %v", took, tc.late)
			}
		})
	}
}
