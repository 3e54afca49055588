package reconciler

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// TestUnobservedDeletion runs the reconciler on every shipped cassette
// (LIST+WATCH: a WatchList has no resourceVersion to come back to).
// Meanwhile a parent it has given a child is deleted and created again
// under its name, as its watch is away. (That is recreate at the re-watch;
// the relist shows only the new parent.) The replay's garbage collector
// deletes the old parent's child. The correct reconciler, reading what is
// there, gives the new parent its own. The planted bug (WithMemo),
// remembering the name, never does. The user's invariant and same-outcome
// find it.
func TestUnobservedDeletion(t *testing.T) {
	tests := []struct {
		name    string
		opts    []Option
		wantBug bool
	}{
		{name: "reconciler - no memory between reconciles - a recreated parent gets its own child - pass"},
		{name: "reconciler - parents remembered by name - a recreated parent gets no child - fail", opts: []Option{WithMemo()}, wantBug: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: cassettes, Target: target("children", tc.opts...), Extra: []fuzz.Invariant{oneChildPerParent}})
			if err != nil {
				t.Fatal(err)
			}
			for i := range c.Cassettes() {
				for _, object := range []int{0, 2, 4} { // parents, in key order
					text := fmt.Sprintf("recreate:object=%d,watch=2", object)
					plan, err := faults.ParseText(text)
					if err != nil {
						t.Fatal(err)
					}
					where := fmt.Sprintf("cassette %d, plan %q", i, text)
					out := c.CheckPlan(t, i, false, plan)
					recreated := false
					for _, f := range out.Observation.Fired {
						recreated = recreated || f.Fault == "recreate"
					}
					if !recreated {
						t.Fatalf("%s: got fired %v, want the recreate", where, out.Observation.Fired)
					}
					if err := out.Results[oneChildPerParent.Name]; tc.wantBug != errors.Is(err, ErrChildren) {
						t.Errorf("%s: one-child-per-parent: got %v, want a parent without its child %v", where, err, tc.wantBug)
					}
					if err := out.Results["same-outcome"]; tc.wantBug != errors.Is(err, oracle.ErrDiffersFromReference) {
						t.Errorf("%s: same-outcome: got %v, want a difference %v", where, err, tc.wantBug)
					}
					for name, err := range out.Results {
						if err != nil && name != oneChildPerParent.Name && name != "same-outcome" {
							t.Errorf("%s: %s: got %v, want it to hold", where, name, err)
						}
					}
				}
			}
		})
	}
}
