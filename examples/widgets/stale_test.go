package widgets

import (
	"errors"
	"fmt"
	"os"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// stalePlanFile is Sieve's stale state on the widget cassettes. The
// manager is stopped at its second watch of widgets, once it reconciled
// every widget. The fresh one's first LIST of widgets (at resourceVersion
// "0") is served a snapshot 5 events old. There the recreated phoenix is
// its predecessor, deleting. That watch's first event comes 10 s late, so
// that the reconciler acts on the stale view.
const stalePlanFile = "testdata/stale-restart.yaml"

// TestStaleRestart runs the exact stale-state plan on every widget
// cassette, on the LIST+WATCH path. (A WatchList is a consistent read: it
// cannot be stale.) The correct reconciler deletes a deleting widget's
// ConfigMap only when that widget controls it. So it leaves the recreated
// widget's ConfigMap alone. The planted one (WithNameOnlyCleanup) deletes
// it by name. The reconciler's own invariant finds it. same-outcome finds
// it too: the ConfigMap deleted and made again by the target's writes,
// against none in the fault-free reference runs.
func TestStaleRestart(t *testing.T) {
	tests := []struct {
		name    string
		opts    []Option
		wantBug bool
	}{
		{name: "widgets reconciler - cleanup of a ConfigMap the widget controls - stale restart - correct - pass"},
		{name: "widgets reconciler - cleanup by name - stale restart deletes the recreated widget's ConfigMap - planted - fail", opts: []Option{WithNameOnlyCleanup()}, wantBug: true},
	}
	data, err := os.ReadFile(stalePlanFile)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := faults.ParsePlan(data)
	if err != nil {
		t.Fatalf("%s: %v", stalePlanFile, err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: cassettes, Resource: widgets, Target: target(t, "widgets", tc.opts...), Extra: []fuzz.Invariant{configMapOutlivesWidget}, Known: crtarget.KnownFindings()})
			if err != nil {
				t.Fatal(err)
			}
			if n := len(c.Cassettes()); n != 2 {
				t.Fatalf("cassettes: got %d, want the 2 of testdata", n)
			}
			for i := range c.Cassettes() {
				where := fmt.Sprintf("cassette %d, LIST+WATCH, plan %q", i, stalePlanFile)
				out := c.CheckPlan(t, i, false, plan)
				fired := map[string]bool{}
				for _, f := range out.Observation.Fired {
					fired[f.Fault] = true
				}
				if !fired["graceful-restart"] || !fired["stale-list"] || !fired["delay"] {
					t.Fatalf("%s: got fired %v, want the restart, the stale LIST and the delay", where, out.Observation.Fired)
				}
				if err := out.Results[configMapOutlivesWidget.Name]; tc.wantBug != errors.Is(err, ErrLiveWidgetConfigMap) {
					t.Errorf("%s: %s: got %v, want a live widget's ConfigMap deleted %v", where, configMapOutlivesWidget.Name, err, tc.wantBug)
				}
				if err := out.Results["same-outcome"]; tc.wantBug != errors.Is(err, oracle.ErrDiffersFromReference) {
					t.Errorf("%s: same-outcome: got %v, want a difference %v", where, err, tc.wantBug)
				}
				for name, err := range out.Results {
					if err != nil && name != configMapOutlivesWidget.Name && name != "same-outcome" {
						t.Errorf("%s: %s: got %v, want it to hold", where, name, err)
					}
				}
				if out.Failed() != tc.wantBug {
					t.Errorf("%s: got failed %v, want %v:\n%s", where, out.Failed(), tc.wantBug, out.Report)
				}
				if tc.wantBug {
					t.Logf("%s: caught by %s: %v", where, configMapOutlivesWidget.Name, out.Results[configMapOutlivesWidget.Name])
					t.Logf("%s: caught by same-outcome: %v", where, out.Results["same-outcome"])
				}
			}
		})
	}
}
