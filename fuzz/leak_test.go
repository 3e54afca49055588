package fuzz

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/fuzz/targets"
)

// withStop returns the informer target changed by change, which runs after
// the informer stopped. (A goroutine blocked on a channel made outside the
// run's bubble is not durably blocked: synctest would wait for it for
// ever. The channels below are made inside.)
func withStop(name string, change func()) Target {
	informer, _ := targets.Lookup("informer")
	return Target{Name: name, Doc: "the informer target, " + name, Run: func(ctx context.Context, env *Env) error {
		err := informer.Run(ctx, env)
		change()
		return err
	}}
}

func TestCleanStopOnRealRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		target   Target
		wantText string // "" when clean-stop must hold
	}{
		{name: "clean-stop - informer - holds - pass", target: withStop("clean", func() {})},
		{name: "clean-stop - goroutine left blocked - fail", wantText: "1 goroutines left after stop",
			target: withStop("leaky", func() { go func() { <-make(chan struct{}) }() })},
		{name: "clean-stop - Run ignores its context - fail", wantText: "Run did not return",
			target: withStop("stuck", func() { <-make(chan struct{}) })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Target: tc.target, WatchList: true})
			err := oracle.Judge(obs, "clean-stop")["clean-stop"]
			switch {
			case tc.wantText == "" && err != nil:
				t.Fatalf("clean-stop: got %v, want it to hold", err)
			case tc.wantText != "" && !errors.Is(err, oracle.ErrUncleanStop):
				t.Fatalf("clean-stop: got %v, want %v", err, oracle.ErrUncleanStop)
			case tc.wantText != "" && !strings.Contains(err.Error(), tc.wantText):
				t.Errorf("clean-stop: got %q, want it to contain %q", err, tc.wantText)
			}
			if tc.wantText != "" && obs.LeftGoroutines > 0 && !strings.Contains(obs.LeftStack, "synctest bubble") {
				t.Errorf("left stack: got %q, want a goroutine of the run's bubble", obs.LeftStack)
			}
			if c := oracle.Judge(obs, "converged")["converged"]; c != nil {
				t.Errorf("converged: got %v, want it to hold (the target did its job before stopping badly)", c)
			}
		})
	}
}
