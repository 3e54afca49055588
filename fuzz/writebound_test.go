package fuzz

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// writeLoop is a target on env.Clientset() that makes a configmap and then
// updates it every wait, each time with a new value, for ever.
//   - With stale, each update sends the resourceVersion of the first (a 409
//     Conflict from the second on).
//   - With once, it writes once and waits.
func writeLoop(name string, wait time.Duration, stale, once bool) Target {
	return Target{Name: name, Doc: "a writer that updates one configmap in a loop", Run: func(ctx context.Context, env *Env) error {
		cs, err := env.Clientset()
		if err != nil {
			return err
		}
		env.Probe.SetStore(func() []any { return nil })
		env.Probe.SetSynced(func() bool { return true })
		cms := cs.CoreV1().ConfigMaps("default")
		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "loop"}, Data: map[string]string{"n": "0"}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		first := cm.DeepCopy()
		for i := 1; ctx.Err() == nil && !(once && i > 1); i++ {
			next := cm.DeepCopy()
			if stale {
				next = first.DeepCopy()
			}
			next.Data = map[string]string{"n": fmt.Sprint(i)}
			if got, err := cms.Update(ctx, next, metav1.UpdateOptions{}); err == nil {
				cm = got
			}
			select {
			case <-ctx.Done():
			case <-time.After(wait):
			}
		}
		<-ctx.Done()
		return nil
	}}
}

// TestWriteBoundsEndTheRun shows a run ending at its first broken
// behaviour bound, within seconds of virtual time (not the 15-minute
// watchdog), judged by that bound's invariant:
//   - a writer updating one object for ever (each time with a new value)
//     is stopped at no-write-storm's bound;
//   - one sending a stale resourceVersion for ever is stopped at
//     no-conflict-loop's.
//
// A writer that stops holds both.
func TestWriteBoundsEndTheRun(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		target  Target
		latency time.Duration // 0: the default
		want    string        // the invariant whose bound ends the run; "" none
		wantErr error
	}{
		{name: "write bounds - a writer updating one object every 100 ms - no-write-storm, fail",
			target: writeLoop("write-loop", 100*time.Millisecond, false, false), want: "no-write-storm", wantErr: oracle.ErrWriteStorm},
		{name: "write bounds - a writer updating one object without a pause (client-go's rate limiter paces it) - no-write-storm, fail",
			target: writeLoop("tight-write-loop", 0, false, false), want: "no-write-storm", wantErr: oracle.ErrWriteStorm},
		{name: "write bounds - a writer updating one object without a pause, no latency (the clock stands still) - no-write-storm, fail",
			target: writeLoop("frozen-write-loop", 0, false, false), latency: -1, want: "no-write-storm", wantErr: oracle.ErrWriteStorm},
		{name: "write bounds - a writer sending a stale resourceVersion every 100 ms - no-conflict-loop, fail",
			target: writeLoop("conflict-loop", 100*time.Millisecond, true, false), want: "no-conflict-loop", wantErr: oracle.ErrConflictLoop},
		{name: "write bounds - a writer that writes once - holds - pass",
			target: writeLoop("write-once", 100*time.Millisecond, false, true)},
	}
	h := loadTargetHistory(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := harness.Observe(t, harness.Spec{History: h, Target: tc.target, Latency: tc.latency})
			if obs == nil {
				t.Fatal("observation: got nil, want one")
			}
			got := ""
			if obs.BoundEnd != nil {
				got = obs.BoundEnd.Invariant
			}
			if got != tc.want {
				t.Fatalf("bound that ended the run: got %q, want %q", got, tc.want)
			}
			results := oracle.Judge(obs, "no-write-storm", "no-conflict-loop", "no-hot-loop")
			for name, err := range results {
				if want := name == tc.want; (err != nil) != want || (want && !errors.Is(err, tc.wantErr)) {
					t.Errorf("%s: got %v, want broken %v (%v)", name, err, want, tc.wantErr)
				}
			}
			if tc.want == "" {
				return
			}
			// promptly: the run looks no more once the bound is crossed (within
			// seconds), then gives the target its stop grace; not at the watchdog
			if obs.BoundEnd.At > 10*time.Second || obs.EndedAt > obs.BoundEnd.At+observe.StopGrace {
				t.Errorf("ended at: got %v (bound crossed at %v), want crossed within 10 s and ended by the stop grace (%v) after",
					obs.EndedAt, obs.BoundEnd.At, observe.StopGrace)
			}
		})
	}
}
