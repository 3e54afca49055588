package kvstore

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
)

// latePlanFile is the plan that reaches the planted bug.
const latePlanFile = "testdata/plans/late-status.yaml"

// TestLateStatus runs the plan of testdata/plans/late-status.yaml with
// the actors, on every cassette and client path. A watch frame comes
// 65 s late, so the operator's cache shows the StatefulSet scaling up
// when the scale-down comes. The correct operator keeps every PVC a
// pod mounts. The planted one deletes them, caught by
// pvc-outlives-pod.
func TestLateStatus(t *testing.T) {
	tests := []struct {
		name    string
		opts    []Option
		wantBug bool
	}{
		{name: "kvstore operator - pods read afresh - late StatefulSet status - correct - pass"},
		{name: "kvstore operator - cached status trusted - late StatefulSet status deletes running pods' PVCs - planted - fail", opts: []Option{WithStatusCleanup()}, wantBug: true},
	}
	data, err := os.ReadFile(latePlanFile)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := faults.ParsePlan(data)
	if err != nil {
		t.Fatalf("%s: %v", latePlanFile, err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := options(t, target(t, "kvstore", tc.opts...))
			o.Scenarios, o.Plans = false, nil
			c, err := fuzz.NewCampaign(o)
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.Cassettes() {
				for _, watchList := range []bool{true, false} {
					where := fmt.Sprintf("cassette %d, watchList %v, plan %q", i, watchList, latePlanFile)
					out := c.CheckPlan(t, i, watchList, plan)
					if len(out.Observation.Fired) == 0 {
						t.Fatalf("%s: got no fault fired, want the delay", where)
					}
					if err := out.Results[pvcOutlivesPod.Name]; tc.wantBug != errors.Is(err, ErrClaimInUse) {
						t.Errorf("%s: %s: got %v, want a PVC deleted under its pod %v", where, pvcOutlivesPod.Name, err, tc.wantBug)
					}
					if out.Failed() != tc.wantBug {
						t.Errorf("%s: got failed %v, want %v:\n%s", where, out.Failed(), tc.wantBug, out.Report)
					}
					if tc.wantBug {
						t.Logf("%s: caught by %s: %v", where, pvcOutlivesPod.Name, out.Results[pvcOutlivesPod.Name])
					}
				}
			}
		})
	}
}
