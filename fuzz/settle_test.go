package fuzz

import (
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/faults"
)

// TestLateFaultJudgedAfterBound reproduces a false alarm: a legal fault
// that fires just before the watchdog (a recreate when the second watch
// opens, at 5 min, under a watchdog of 5 min 0.5 s) left client-go's
// informer no time to relist, and converged and live broke on correct
// code. The run now goes on until the live bound has passed since the
// last fault, and is judged then; a plan that keeps firing until the
// run's hard end leaves it unsettled, and not judged on convergence.
func TestLateFaultJudgedAfterBound(t *testing.T) {
	informer, _ := LookupTarget("informer")
	tests := []struct {
		name          string
		plan          string
		watchdog      time.Duration
		wantUnsettled bool
	}{
		{name: "late fault - recreate 0.5 s before the watchdog - judged after the bound, holds - pass",
			plan: "recreate:object=1,watch=2", watchdog: 5*time.Minute + 500*time.Millisecond},
		{name: "late fault - recreate at every re-watch until the hard end - unsettled, not judged - pass",
			plan: "recreate:object=1", watchdog: 5*time.Minute + 500*time.Millisecond, wantUnsettled: true},
	}
	for _, level := range []Level{Typed, Wire} {
		for _, tc := range tests {
			t.Run(level.String()+" "+tc.name, func(t *testing.T) {
				plan, err := faults.ParseText(tc.plan)
				if err != nil {
					t.Fatalf("plan %q: got error %v, want none", tc.plan, err)
				}
				obs := Observe(t, Spec{History: loadTargetHistory(t), Plan: plan, Target: informer, WatchList: false, Level: level, watchdog: tc.watchdog})
				if obs.LastFaultAt < 5*time.Minute {
					t.Fatalf("last fault at: got %v, want at the second watch (5 min or later); fired: %s", obs.LastFaultAt, faults.Story(obs.Fired))
				}
				if obs.Unsettled != tc.wantUnsettled {
					t.Errorf("unsettled: got %v, want %v (last fault at %v, ended at %v)", obs.Unsettled, tc.wantUnsettled, obs.LastFaultAt, obs.EndedAt)
				}
				if !tc.wantUnsettled && obs.EndedAt < obs.LastFaultAt+defaultLiveBound && !obs.EndedEarly {
					t.Errorf("ended at: got %v, want the live bound after the last fault (%v) or an early end", obs.EndedAt, obs.LastFaultAt+defaultLiveBound)
				}
				for name, err := range Judge(obs) {
					if err != nil {
						t.Errorf("%s: got %v, want it to hold (fired: %s)", name, err, faults.Story(obs.Fired))
					}
				}
			})
		}
	}
}
