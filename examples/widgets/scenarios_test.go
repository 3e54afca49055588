package widgets

import (
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
)

// TestScenarios checks the fault-free LIST+WATCH input of each widget
// cassette with Options.Scenarios. The correct reconciler holds under
// every scenario plan. The stale-state scenario finds the planted
// stale-state bug (WithNameOnlyCleanup), with no plan written by hand.
func TestScenarios(t *testing.T) {
	tests := []struct {
		name    string
		opts    []Option
		wantBug bool
	}{
		{name: "widgets reconciler - scenarios from the fault-free run - correct - pass"},
		{name: "widgets reconciler - scenarios from the fault-free run - cleanup by name - fail", opts: []Option{WithNameOnlyCleanup()}, wantBug: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := options(target(t, "widgets", tc.opts...))
			o.Plans = nil
			c, err := fuzz.NewCampaign(o)
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.Cassettes() {
				out := c.Check(t, fuzz.Input{Cassette: byte(i)}.Bytes())
				if out.Failed() != tc.wantBug {
					t.Fatalf("cassette %d: got failed %v, want %v:\n%s", i, out.Failed(), tc.wantBug, out.Report)
				}
				if !tc.wantBug {
					continue
				}
				if out.Scenario != "stale-state" || out.Results[configMapOutlivesWidget.Name] == nil {
					t.Errorf("cassette %d: got scenario %q, %s %v, want stale-state breaking it", i, out.Scenario, configMapOutlivesWidget.Name, out.Results[configMapOutlivesWidget.Name])
				}
				t.Logf("cassette %d: found by %s, plan %s", i, out.Scenario, out.Plan)
			}
		})
	}
}
