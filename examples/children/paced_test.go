package children

import (
	"fmt"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/replayer"
)

// TestPacedOtherActors replays the shipped cassettes at their recorded
// pace. So the recorded changes of the parents (the other actors) come
// while the controller writes. Every seed holds every invariant. Some
// cassettes' parents change after the controller annotated them. There a
// parent's final state is another actor's change served onto the
// annotated parent, annotations kept. It is not the controller's write.
func TestPacedOtherActors(t *testing.T) {
	c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: cassettes, Target: controllerTarget("children"), Extra: []fuzz.Invariant{childrenMatchParents},
		Pace: replayer.Pace{Mode: replayer.PaceRecorded}})
	if err != nil {
		t.Fatal(err)
	}
	rebased := 0
	for _, in := range [][]byte{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {2, 0}, {2, 1}} {
		t.Run(fmt.Sprintf("paced - seed %q - every invariant holds - pass", in), func(t *testing.T) {
			out := c.Check(t, in)
			if out.Failed() {
				t.Fatalf("got a failure, want none:\n%s", out.Report)
			}
			obs := out.Observation
			mine := map[string]bool{} // key@rv of what the controller stored
			for _, w := range obs.Writes {
				if w.Stored() {
					mine[w.Key+"@"+w.RVAfter] = true
				}
			}
			served, _ := obs.Served.Log(configMaps)
			for _, o := range served.StateAt(served.End()) {
				if o.Labels[ChildLabel] == "" && o.Annotations[ReconciledAnnotation] == "true" && !mine[o.Key()+"@"+o.ResourceVersion] {
					rebased++
				}
			}
		})
	}
	if rebased == 0 {
		t.Errorf("got no parent whose final state is another actor's change onto the controller's annotations, want some (the recorded changes come after the controller's writes)")
	}
	t.Logf("parents ending on another actor's change, annotations kept: %d", rebased)
}
