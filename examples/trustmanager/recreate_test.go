package trustmanager

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/cert-manager/trust-manager/pkg/bundle"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/internal/testutil"
	"github.com/lwreplay/lwreplay/replayer"
)

// recreatePlanFile is the plan that makes trust-manager recreate a
// deselected target in a loop.
const recreatePlanFile = "testdata/plans/deselected-target-loop.yaml"

// slowUser is the recorded pace, 4 times slower: the user's changes come
// 4 times further apart than recorded (the recording's span is 10.6 s).
var slowUser = replayer.Pace{Mode: replayer.PaceRecorded, Factor: 0.25}

// TestDeselectedTargetRecreated runs the recorded user, 4 times slower,
// on every cassette and client path, with no fault and under the plan of
// testdata/plans/deselected-target-loop.yaml. The user unlabels team-a,
// which the team Bundle then no longer selects. Under the plan every watch
// frame comes 1 ms after its write's answer, so trust-manager's cleanup
// finds the target it has just deleted in its cache, creates it again
// and deletes it: more than 30 writes of team-a/team-trust within 10 s
// break no-write-storm, at CleanupTarget's writes. The run is
// CleanupRecreates, known. With no fault the watch trails the writes only
// as goroutines happen to run: no-write-storm holds in most runs (14 of 15
// at GOMAXPROCS 2), and a storm is CleanupRecreates too, never another
// report (a real kube-apiserver shows 1 re-creation in 10 deselections).
func TestDeselectedTargetRecreated(t *testing.T) {
	data, err := os.ReadFile(recreatePlanFile)
	if err != nil {
		t.Fatal(err)
	}
	loop, err := faults.ParsePlan(data)
	if err != nil {
		t.Fatalf("%s: %v", recreatePlanFile, err)
	}
	tests := []struct {
		name     string
		plan     faults.Plan
		wantLoop bool
	}{
		{name: "trust-manager - namespace deselected, no fault - target deleted, no write storm - pass"},
		{name: "trust-manager - namespace deselected, watch 1 ms behind the writes - target recreated and deleted in a loop - fail", plan: loop, wantLoop: true},
	}
	o := options(t)
	o.Scenarios, o.Pace = false, slowUser
	c, err := fuzz.NewCampaign(o)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			runs, reproduced := 0, 0
			if tc.wantLoop {
				defer func() { recordFinding(t, "cleanup recreates a deselected target", reproduced, runs) }()
			}
			for i := range c.Cassettes() {
				for _, watchList := range []bool{true, false} {
					where := fmt.Sprintf("cassette %d, watchList %v", i, watchList)
					out := c.CheckPlan(t, i, watchList, tc.plan)
					if tc.wantLoop && len(out.Observation.Fired) == 0 {
						t.Fatalf("%s: got no fault fired, want the delays", where)
					}
					storm := out.Results["no-write-storm"]
					if tc.wantLoop {
						runs++
						if errors.Is(storm, oracle.ErrWriteStorm) && strings.Contains(out.Known, CleanupRecreates) {
							reproduced++
						}
					}
					stormed := errors.Is(storm, oracle.ErrWriteStorm)
					if stormed != tc.wantLoop && (tc.wantLoop || !strings.Contains(out.Known, CleanupRecreates)) {
						t.Errorf("%s: no-write-storm: got %v (known %q), want a storm %v", where, storm, out.Known, tc.wantLoop)
					}
					if tc.wantLoop && !strings.Contains(fmt.Sprint(storm), "team-a/team-trust") {
						t.Errorf("%s: no-write-storm: got %v, want team-a/team-trust's writes", where, storm)
					}
					// A run that also leaves kubernetes#113254's goroutine
					// is known as both ("… + …").
					if got := strings.Contains(out.Known, CleanupRecreates); got != (tc.wantLoop || stormed) {
						t.Errorf("%s: got known finding %q (signature %s), want %s %v", where, out.Known, out.Signature(), CleanupRecreates, tc.wantLoop || stormed)
					}
					if out.Failed() {
						t.Errorf("%s: got failed, want a pass:\n%s", where, out.Report)
					}
				}
			}
		})
	}
}

// recordFinding records whether finding reproduced, for
// hack/operator-findings.sh's findings × versions table (testutil.FindingsEnv).
// It reproduced in reproduced of runs (the cassettes and client paths).
func recordFinding(t *testing.T, finding string, reproduced, runs int) {
	t.Helper()
	op := harness.ModuleVersion("github.com/cert-manager/trust-manager", bundle.SetupWithManager)
	testutil.RecordFinding(t, testutil.Finding{Finding: "trust-manager " + op + ": " + finding, ClientGo: harness.ClientGoVersion(),
		Versions:   "controller-runtime " + harness.ModuleVersion("sigs.k8s.io/controller-runtime", ctrl.NewManager),
		Reproduced: reproduced, Runs: runs})
}
