package cassharness

import (
	"errors"
	"os"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// TestIssue118 runs the stale-state plan that re-found cass-operator#118
// (testdata/plans/issue118.yaml) on every cassette, LIST path. The
// operator is stopped at its second watch of datacenters (about 5 min in,
// after the recreate); its fresh instance's LIST is served 5 events old,
// the first datacenter still being deleted, and that watch's first event
// comes 10 s late. It deletes the recreated datacenter's claims:
// live-datacenter-claims-kept breaks. Fault-free, it holds.
func TestIssue118(t *testing.T) {
	b, err := os.ReadFile("testdata/plans/issue118.yaml")
	if err != nil {
		t.Fatal(err)
	}
	plan, err := faults.ParsePlan(b)
	if err != nil {
		t.Fatal(err)
	}
	o := options(target(t))
	o.Scenarios = false
	c, err := fuzz.NewCampaign(o)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		plan    faults.Plan
		wantBug bool
	}{
		{name: "live-datacenter-claims-kept - fault-free - pass", plan: faults.Plan{}},
		{name: "live-datacenter-claims-kept - restart served a stale list (issue 118) - fail", plan: plan, wantBug: true},
	}
	for _, tc := range tests {
		for cas := range len(cassettes) {
			t.Run(tc.name, func(t *testing.T) {
				out := c.CheckPlan(t, cas, false, tc.plan)
				err, why := oracle.JudgeOne(liveClaimsKept, out.Observation)
				if why != "" {
					t.Fatalf("got not judged: %s, want a verdict", why)
				}
				if got := errors.Is(err, ErrLiveClaimDeleted); got != tc.wantBug {
					t.Errorf("cassette %d: got %v, want %v broken %v", cas, err, ErrLiveClaimDeleted, tc.wantBug)
				}
			})
		}
	}
}
