package fuzz

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/fuzz/targets"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// TestHotLoopEndsTheRun shows a bound a hot loop cannot escape. Two loops
// are stopped at the request bound:
//   - a target that reconnects without ever blocking (virtual time stands
//     still, so before the bound the run never ended);
//   - client-go's own reflector restarting WatchList streams that close
//     before their initial events end (kubernetes/kubernetes#140890).
//
// Each is judged by no-hot-loop, with the requests per resource and the
// stack of the looping goroutine.
func TestHotLoopEndsTheRun(t *testing.T) {
	informer, _ := targets.Lookup("informer")
	// reconnecting watches, closes its watch at once and watches again,
	// never waiting.
	reconnecting := Target{Name: "reconnecting", Doc: "a consumer that re-watches in a loop", Run: func(ctx context.Context, env *Env) error {
		lw, err := env.ListerWatcher(&unstructured.Unstructured{})
		if err != nil {
			return err
		}
		env.Probe.SetStore(func() []any { return nil })
		for ctx.Err() == nil {
			w, err := lw.Watch(metav1.ListOptions{ResourceVersion: "0"})
			if err == nil {
				w.Stop()
			}
		}
		return nil
	}}
	tests := []struct {
		name      string
		target    Target
		plan      string
		watchList bool
		wantHot   bool
		wantStack string // a frame the looping goroutine's stack shows
	}{
		{name: "hot loop - a consumer re-watching without blocking - no-hot-loop, fail", target: reconnecting,
			wantHot: true, wantStack: "fuzz.TestHotLoopEndsTheRun"},
		{name: "hot loop - informer, WatchList, every watch closed after 3 events - no-hot-loop, fail", target: informer,
			plan: "close-watch:after=3", watchList: true, wantHot: true, wantStack: "cache.(*Reflector).watchList"},
		{name: "hot loop - informer, LIST+WATCH, every watch closed after 3 events - holds - pass", target: informer,
			plan: "close-watch:after=3", watchList: false},
	}
	for _, lvl := range []Level{Typed, Wire} {
		for _, tc := range tests {
			t.Run(lvl.String()+" "+tc.name, func(t *testing.T) {
				plan := mustPlan(t, tc.plan)
				obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Plan: plan, Target: tc.target, WatchList: tc.watchList, Level: lvl})
				err := oracle.Judge(obs, "no-hot-loop")["no-hot-loop"]
				if !tc.wantHot {
					if err != nil {
						t.Errorf("no-hot-loop: got %v, want it to hold", err)
					}
					return
				}
				if !errors.Is(err, oracle.ErrHotLoop) {
					t.Fatalf("no-hot-loop: got %v, want %v", err, oracle.ErrHotLoop)
				}
				for _, want := range []string{"more than 200 requests within 1s of virtual time", "configmaps: 201", tc.wantStack} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("no-hot-loop: got %.600q, want it to say %q", err, want)
					}
				}
			})
		}
	}
}

// TestBehaviourInvariantsOnRealRuns shows no-request-storm and progress
// firing on real runs:
//   - client-go's own WatchList restart storm;
//   - a consumer that retries every 100 ms without backing off (too slow
//     for no-hot-loop).
//
// It shows them holding on the same plans on the LIST+WATCH path and on
// clean runs.
func TestBehaviourInvariantsOnRealRuns(t *testing.T) {
	informer, _ := targets.Lookup("informer")
	// impatient lists and, on every failure, lists again 100 ms later.
	impatient := Target{Name: "impatient", Doc: "a consumer that retries every 100 ms", Run: func(ctx context.Context, env *Env) error {
		lw, err := env.ListerWatcher(&unstructured.Unstructured{})
		if err != nil {
			return err
		}
		env.Probe.SetStore(func() []any { return nil })
		for ctx.Err() == nil {
			if _, err := lw.List(metav1.ListOptions{}); err == nil {
				env.Probe.SetSynced(func() bool { return true })
				<-ctx.Done()
				return nil
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
		return nil
	}}
	tests := []struct {
		name      string
		target    Target
		plan      string
		watchList bool
		want      map[string]error // invariant → error it wraps (nil: holds)
	}{
		{name: "behaviour - informer, WatchList, every watch closed after 3 events - storm, no progress, fail", target: informer,
			plan: "close-watch:after=3,from=0", watchList: true, want: map[string]error{"no-request-storm": oracle.ErrRequestStorm, "progress": oracle.ErrNoProgress}},
		{name: "behaviour - informer, LIST+WATCH, every watch closed after 3 events - holds - pass", target: informer,
			plan: "close-watch:after=3,from=0", watchList: false, want: map[string]error{"no-request-storm": nil, "progress": nil}},
		{name: "behaviour - informer, WatchList, no fault - holds - pass", target: informer, watchList: true,
			want: map[string]error{"no-request-storm": nil, "progress": nil}},
		{name: "behaviour - a consumer retrying every 100 ms while every LIST fails - storm, fail", target: impatient,
			plan: "http-error:code=500,from=0", want: map[string]error{"no-request-storm": oracle.ErrRequestStorm, "progress": nil}},
	}
	for _, lvl := range []Level{Typed, Wire} {
		for _, tc := range tests {
			t.Run(lvl.String()+" "+tc.name, func(t *testing.T) {
				plan := mustPlan(t, tc.plan)
				obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Plan: plan, Target: tc.target, WatchList: tc.watchList, Level: lvl})
				results := oracle.Judge(obs)
				for name, want := range tc.want {
					if got := results[name]; !errors.Is(got, want) || (want == nil) != (got == nil) {
						t.Errorf("%s: got %v, want %v", name, got, want)
					}
				}
			})
		}
	}
}
