package crtarget_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/stacks"
)

// TestManagerGracefulRestart stops the annotator manager as a SIGTERM does
// (graceful-restart) on both client paths. Stopped once its caches have
// synced (at its second watch request, or later), it returns. A fresh
// manager starts and finishes the work, and every invariant holds.
//
// Stopped while its cache syncs, it does not return. runnableGroup.Start
// (pkg/manager/runnable_group.go) loops on the closed ctx.Done() until
// every runnable has signalled ready. A cache polls for that every 100 ms
// of a clock the loop stops. In real time, that burns a core until the
// caches sync, for ever if they never do. The no-spin invariant reports it at
// runnableGroup.Start, after the fault stopped it, and the run is given
// up, not hung. Given up, it ends the loop: no goroutine of it is left busy.
//
// With the loop among Spec.KnownSpins, as a campaign sets it from the known
// findings, the run is given up there as soon as it is seen in it
// (harness.KnownSpinAfter), with the same verdict.
func TestManagerGracefulRestart(t *testing.T) {
	files, err := cassette.LoadAll("../../cassettes/real-configmaps-pods-list-pages.yaml")
	if err != nil {
		t.Fatal(err)
	}
	h, err := history.Build(files...)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name      string
		plan      string
		watchList bool
		wantSpin  bool
		known     bool // Spec.KnownSpins holds controller-runtime#3440's loop, as a campaign's does
	}{
		// the cache cannot sync before the stop. Either the stop comes at the
		// LIST retried after a 503: the cache's first poll for a sync is past,
		// and the next one needs the clock. Or the WatchList's first frame is a
		// second late.
		{name: "manager graceful restart - at its second LIST, while syncing - spins in runnableGroup.Start - fail",
			plan: "http-error:code=503,list=1 graceful-restart:list=2", wantSpin: true},
		{name: "manager graceful restart - at its WatchList, while syncing - spins in runnableGroup.Start - fail",
			plan: "graceful-restart:watch=1 delay:ms=1000,watch=1,frame=1", watchList: true, wantSpin: true},
		{name: "manager graceful restart - at its second LIST, while syncing, the loop known - given up at the known busy loop - fail",
			plan: "http-error:code=503,list=1 graceful-restart:list=2", wantSpin: true, known: true},
		{name: "manager graceful restart - at its WatchList, while syncing, the loop known - given up at the known busy loop - fail",
			plan: "graceful-restart:watch=1 delay:ms=1000,watch=1,frame=1", watchList: true, wantSpin: true, known: true},
		{name: "manager graceful restart - at its second watch, synced - restarted, converges - pass", plan: "graceful-restart:watch=2"},
		{name: "manager graceful restart - at its second watch, synced, WatchList - restarted, converges - pass", plan: "graceful-restart:watch=2", watchList: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := faults.ParseText(tc.plan)
			if err != nil {
				t.Fatal(err)
			}
			var spins []string
			if tc.known {
				spins = []string{startLoop}
			}
			obs := harness.Observe(t, harness.Spec{History: h, Plan: plan, Target: annotatorTarget, WatchList: tc.watchList, SpinBound: 3 * time.Second, KnownSpins: spins})
			results, _ := oracle.JudgeNames(obs, nil)
			sig := oracle.SignatureOf(results)
			if !tc.wantSpin {
				if len(obs.Restarts) != 1 {
					t.Errorf("restarts: got %v, want one (fired %v)", obs.Restarts, obs.Fired)
				}
				for name, err := range results {
					if err != nil && !errors.Is(err, oracle.ErrNotJudged) {
						t.Errorf("%s: got %v, want it to hold", name, err)
					}
				}
				return
			}
			err = results["no-spin"]
			if !errors.Is(err, oracle.ErrSpin) {
				t.Fatalf("no-spin: got %v, want %v", err, oracle.ErrSpin)
			}
			for _, want := range []string{"after the run stopped it", "runnableGroup).Start"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("no-spin: got %q, want it to say %q", err, want)
				}
			}
			stopped := false
			for _, f := range obs.Fired {
				stopped = stopped || f.Fault == "graceful-restart"
			}
			if !stopped {
				t.Errorf("fired: got %v, want graceful-restart (the report's story)", obs.Fired)
			}
			if want := spins; obs.Spin.Known != strings.Join(want, "") {
				t.Errorf("spin: got it given up at known loop %q, want %q (Spec.KnownSpins %q)", obs.Spin.Known, strings.Join(want, ""), want)
			}
			matched := ""
			for _, k := range crtarget.KnownFindings() {
				if k.Matches(sig) {
					matched = k.Name
				}
			}
			if matched != "controller-runtime#3440" {
				t.Errorf("known finding: got %q for %v, want controller-runtime#3440", matched, sig)
			}
			// given up, the run told the cache (Env.GivenUp): its wait ended, so
			// did the busy loop, and the run
			if n := stacks.Count("runnableGroup).Start.func1"); n > 0 {
				t.Errorf("after the run: got %d goroutines busy in runnableGroup.Start, want none (the run gives up and ends the loop)", n)
			}
		})
	}
}

// startLoop is controller-runtime#3440's site: runnableGroup.Start's busy loop.
const startLoop = "sigs.k8s.io/controller-runtime/pkg/manager.(*runnableGroup).Start"
