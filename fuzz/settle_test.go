package fuzz

import (
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/internal/serving"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/fuzz/targets"
	"github.com/lwreplay/lwreplay/history"
)

// TestLateFaultJudgedAfterBound reproduces a false alarm. A legal fault
// fired just before the watchdog: a recreate when the second watch opens,
// at 5 min, under a watchdog of 5 min 0.5 s. It left client-go's informer
// no time to relist, and converged and live broke on correct code. The
// run now goes on until the live bound has passed since the last fault,
// and is judged then. A plan that keeps firing until the run's hard end
// leaves it unsettled, and not judged on convergence.
func TestLateFaultJudgedAfterBound(t *testing.T) {
	informer, _ := targets.Lookup("informer")
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
	for _, lvl := range []Level{Typed, Wire} {
		for _, tc := range tests {
			t.Run(lvl.String()+" "+tc.name, func(t *testing.T) {
				plan := mustPlan(t, tc.plan)
				obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Plan: plan, Target: informer, WatchList: false, Level: lvl, Watchdog: tc.watchdog})
				if obs.LastFaultAt < 5*time.Minute {
					t.Fatalf("last fault at: got %v, want at the second watch (5 min or later); fired: %s", obs.LastFaultAt, faults.Story(obs.Fired))
				}
				if obs.Unsettled != tc.wantUnsettled {
					t.Errorf("unsettled: got %v, want %v (last fault at %v, ended at %v)", obs.Unsettled, tc.wantUnsettled, obs.LastFaultAt, obs.EndedAt)
				}
				if !tc.wantUnsettled && obs.EndedAt < obs.LastFaultAt+observe.DefaultLiveBound && !obs.EndedEarly {
					t.Errorf("ended at: got %v, want the live bound after the last fault (%v) or an early end", obs.EndedAt, obs.LastFaultAt+observe.DefaultLiveBound)
				}
				for name, err := range oracle.Judge(obs) {
					if err != nil {
						t.Errorf("%s: got %v, want it to hold (fired: %s)", name, err, faults.Story(obs.Fired))
					}
				}
			})
		}
	}
}

// falseAlarmEnv sets how many inputs TestNoFalseAlarmOnRelists runs
// (default 40; the closing figure is 1,000).
const falseAlarmEnv = "LWREPLAY_FALSE_ALARM_RUNS"

// TestNoFalseAlarmOnRelists runs client-go's informer under random plans
// placed at its later watches. The plans hold recreates (each a 410 and a
// relist), expiries and closed watches. Under the 5-minute watch cap they
// come at 5, 10, 15 minutes and later, around the watchdog. It runs on
// every shipped cassette, both client paths and both levels. This is a
// correct client, so no run may fail.
func TestNoFalseAlarmOnRelists(t *testing.T) {
	n := 40
	if v, err := strconv.Atoi(os.Getenv(falseAlarmEnv)); err == nil && v > 0 {
		n = v
	}
	if testing.Short() {
		n = 10
	}
	var histories []*history.History
	for _, path := range Glob("../cassettes/*.yaml") {
		histories = append(histories, mustHistory(t, path))
	}
	informer, _ := targets.Lookup("informer")
	r := rand.New(rand.NewPCG(21, 22))
	failed, fired, unsettled, late := 0, 0, 0, 0
	for i := range n {
		var text []string
		for range 1 + r.IntN(3) {
			switch w := 1 + r.IntN(6); r.IntN(3) {
			case 0:
				text = append(text, fmt.Sprintf("recreate:object=%d,watch=%d", r.IntN(8), w))
			case 1:
				text = append(text, fmt.Sprintf("expire-watch:after=%d,watch=%d", r.IntN(4), w))
			default:
				text = append(text, fmt.Sprintf("close-watch:after=%d,watch=%d", r.IntN(4), w))
			}
		}
		plan, err := faults.ParseText(strings.Join(text, " "))
		if err != nil {
			t.Fatal(err)
		}
		spec := harness.Spec{History: histories[i%len(histories)], Plan: plan, Target: informer, WatchList: i%2 == 0, Level: Level(i / 2 % 2)}
		obs := harness.Observe(t, spec)
		for name, err := range oracle.Judge(obs) {
			if err != nil {
				failed++
				t.Errorf("plan %s, WatchList %v, %s: %s: got %v, want it to hold (fired: %s)", plan, spec.WatchList, spec.Level, name, err, faults.Story(obs.Fired))
			}
		}
		fired += len(obs.Fired)
		if obs.Unsettled {
			unsettled++
		}
		if obs.LastFaultAt >= harness.DefaultWatchdog-serving.WatchCap {
			late++
		}
	}
	t.Logf("%d runs: %d faults fired, %d runs with a fault in the last %v before the watchdog or later, %d unsettled, %d failures",
		n, fired, late, serving.WatchCap, unsettled, failed)
}
