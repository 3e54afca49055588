package trustmanager

import (
	"fmt"
	"os"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
)

// heldFramesPlanFile holds back the Namespaces' and Secrets' events 10 s
// longer than the Bundles'.
const heldFramesPlanFile = "testdata/plans/held-frames.yaml"

// TestHeldFramesJudgedOnceSent runs the plan of
// testdata/plans/held-frames.yaml on every cassette and client path. The
// run must not end while a delay holds the Namespaces' events back: once
// they arrive, trust-manager writes the targets of the namespaces they
// label, and every invariant holds.
func TestHeldFramesJudgedOnceSent(t *testing.T) {
	data, err := os.ReadFile(heldFramesPlanFile)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := faults.ParsePlan(data)
	if err != nil {
		t.Fatalf("%s: %v", heldFramesPlanFile, err)
	}
	t.Run("trust-manager - namespaces' events held 10 s past the Bundles' - targets written once they arrive - pass", func(t *testing.T) {
		o := options(t)
		o.Scenarios = false
		c, err := fuzz.NewCampaign(o)
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.Cassettes() {
			for _, watchList := range []bool{true, false} {
				where := fmt.Sprintf("cassette %d, watchList %v", i, watchList)
				out := c.CheckPlan(t, i, watchList, plan)
				if n := len(out.Observation.Fired); n < 2 {
					t.Fatalf("%s: got %d firings, want the delays of two streams at least", where, n)
				}
				if err := out.Results[targetsHoldBundle.Name]; err != nil {
					t.Errorf("%s: %s: got %v, want it to hold", where, targetsHoldBundle.Name, err)
				}
				if out.Failed() {
					t.Errorf("%s: got failed, want a pass:\n%s", where, out.Report)
				}
			}
		}
	})
}
