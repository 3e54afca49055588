package fuzz

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
)

// retrying returns a raw list/watch consumer that waits pause before each
// relist. It lists, watches from the list's resourceVersion until the
// watch ends, and starts over. A failed request waits pause too.
func retrying(pause time.Duration) Target {
	return Target{Name: "retrying", Doc: "a consumer that relists after a pause", Run: func(ctx context.Context, env *Env) error {
		lw, err := env.ListerWatcher(&unstructured.Unstructured{})
		if err != nil {
			return err
		}
		env.Probe.SetStore(func() []any { return nil })
		wait := func() bool {
			select {
			case <-ctx.Done():
				return false
			case <-time.After(pause):
				return true
			}
		}
		for ctx.Err() == nil {
			list, err := lw.List(metav1.ListOptions{})
			if err != nil {
				if !wait() {
					return nil
				}
				continue
			}
			rv := ""
			if l, ok := list.(metav1.ListInterface); ok {
				rv = l.GetResourceVersion()
			}
			if w, err := lw.Watch(metav1.ListOptions{ResourceVersion: rv}); err == nil {
				drain(ctx, w)
			}
			if !wait() {
				return nil
			}
		}
		return nil
	}}
}

// drain reads w until it ends or ctx is done.
func drain(ctx context.Context, w watch.Interface) {
	defer w.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-w.ResultChan():
			if !ok {
				return
			}
		}
	}
}

// TestHotLoopIsARate shows no-hot-loop judging how fast a client asks, not
// how many requests a run holds. Persistent faults keep a run going for 35
// minutes of virtual time (over 4000 requests). A consumer that waits a
// second before each relist holds it. One that waits 5 ms crosses the
// sustained rate within its first minute.
func TestHotLoopIsARate(t *testing.T) {
	tests := []struct {
		name    string
		pause   time.Duration
		plan    string
		wantHot bool
		// long: a recreate rewrites the history at every re-watch, 35 virtual
		// minutes of them. That takes about 20 s alone, and 113 s on a loaded
		// 2-core machine: a third of the package's -short time there.
		long bool
	}{
		{name: "hot loop - relist every second, every watch closed at once, persistent - holds - pass", pause: time.Second,
			plan: "close-watch:after=0,from=0"},
		{name: "hot loop - relist every second, every request 429, persistent - holds - pass", pause: time.Second,
			plan: "http-error:code=429,from=0"},
		{name: "hot loop - relist every second, recreated object, persistent - holds - pass", pause: time.Second,
			plan: "recreate:object=0,from=1", long: true},
		{name: "hot loop - relist every 5 ms, every watch closed at once - no-hot-loop, fail", pause: 5 * time.Millisecond,
			plan: "close-watch:after=0,from=0", wantHot: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("a recreate at every re-watch for 35 virtual minutes: not in -short")
			}
			obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Plan: mustPlan(t, tc.plan), Target: retrying(tc.pause), Level: Wire})
			err := oracle.Judge(obs, "no-hot-loop")["no-hot-loop"]
			if !tc.wantHot {
				if err != nil {
					t.Errorf("no-hot-loop: got %.300v, want it to hold (%d requests, run ended at %v)", err, len(obs.Requests), obs.EndedAt)
				}
				return
			}
			if !errors.Is(err, oracle.ErrHotLoop) || !strings.Contains(err.Error(), "a second sustained") {
				t.Fatalf("no-hot-loop: got %.300v, want %v for a sustained rate", err, oracle.ErrHotLoop)
			}
			if obs.HotLoop.At > time.Minute+10*time.Second {
				t.Errorf("hot loop: got crossed at %v, want within the first %v of virtual time", obs.HotLoop.At, time.Minute+10*time.Second)
			}
		})
	}
}

// TestProgressAfterSlowWatchList holds a false alarm lwreplay fuzz raised
// on client-go's correct code. Every watch frame is delayed 65 s, so the
// first WatchList ends only at the replay's 5-minute watch timeout, and
// the second is answered 503. The reflector falls back to LIST and syncs at
// 5m15s. That is after 5 minutes from the first fault, but within the bound
// that counts the watch timeout.
func TestProgressAfterSlowWatchList(t *testing.T) {
	c, err := NewCampaign(Options{Cassettes: []string{"../cassettes/real-configmaps-expired.yaml"}})
	if err != nil {
		t.Fatal(err)
	}
	const text = "delay:ms=65000,from=1 http-error:code=503,at=6"
	p, err := faults.ParseText(text)
	if err != nil {
		t.Fatal(err)
	}
	enc, err := faults.Encode(p) // the bytes of the registry's codes: they move as faults are added
	if err != nil {
		t.Fatal(err)
	}
	out := c.Check(t, append([]byte{0, 1}, enc...))
	if got := planText(out.Plan); got != text {
		t.Fatalf("plan: got %s, want delay:ms=65000,from=1 http-error:code=503,at=6", got)
	}
	if out.Observation.SyncedAt <= 5*time.Minute {
		t.Errorf("synced: got at %v, want after 5m (the case this holds)", out.Observation.SyncedAt)
	}
	if err := out.Results["progress"]; err != nil {
		t.Errorf("progress: got %v, want it to hold", err)
	}
}
