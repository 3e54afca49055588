package eck

import (
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
)

// TestFaultFreeReconcilesSucceed runs each controller with no fault on
// every cassette and client path. The reconciles of a healthy operator on
// a healthy cluster end well: none is failing when the run ends. (Every
// Beat and Agent status update was once answered 500: the replay took
// ECK's types, which its main registers into client-go's scheme, for
// built-in kinds.)
func TestFaultFreeReconcilesSucceed(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts fuzz.Options
	}{
		{"beat", options(target(t))},
		{"agent", agentOptions(agentTarget(t))},
	} {
		tc.opts.Scenarios = false
		c, err := fuzz.NewCampaign(tc.opts)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.Cassettes() {
			for _, wl := range []bool{false, true} {
				t.Run(tc.name+" - fault-free run - no reconcile failing - pass", func(t *testing.T) {
					out := c.CheckPlan(t, i, wl, faults.Plan{})
					rec, ok := out.Observation.Exposed.(*crtarget.Reconciles)
					if !ok {
						t.Fatalf("exposed: got %T, want *crtarget.Reconciles", out.Observation.Exposed)
					}
					if failing := rec.Failing(); len(failing) > 0 {
						t.Errorf("cassette %d, WatchList %v: got failing reconciles %v, want none", i, wl, failing)
					}
				})
			}
		}
	}
}
