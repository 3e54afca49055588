package crtarget_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// TestManagerStoppedWhileSyncing stops a controller-runtime v0.23.3
// manager whose cache never syncs. Every request is answered 503, legal
// for an overloaded apiserver. At the watchdog the run cancels its
// context. The manager's runnableGroup.Start
// (pkg/manager/runnable_group.go) then loops on the closed ctx.Done() for
// ever, waiting for a cache that will never signal ready. The run does not
// hang. It is given up after the spin bound and reported by no-spin, with
// the spinning goroutine at runnableGroup.Start, after the run stopped the
// manager.
func TestManagerStoppedWhileSyncing(t *testing.T) {
	files, err := cassette.LoadAll("../../cassettes/real-configmaps-pods-list-pages.yaml")
	if err != nil {
		t.Fatal(err)
	}
	h, err := history.Build(files...)
	if err != nil {
		t.Fatal(err)
	}
	plan, err := faults.ParseText("http-error:code=503,from=0")
	if err != nil {
		t.Fatal(err)
	}
	obs := harness.Observe(t, harness.Spec{History: h, Plan: plan, Target: annotatorTarget, SpinBound: 3 * time.Second})
	results, notJudged := oracle.JudgeNames(obs, nil)
	err = results["no-spin"]
	if !errors.Is(err, oracle.ErrSpin) {
		t.Fatalf("no-spin: got %v, want %v", err, oracle.ErrSpin)
	}
	for _, want := range []string{"after the run stopped it", "runnableGroup).Start"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("no-spin: got %q, want it to say %q", err, want)
		}
	}
	for name, e := range results {
		if name != "no-spin" && e != nil {
			t.Errorf("%s: got %v, want it not judged on a run given up spinning", name, e)
		}
	}
	if _, ok := notJudged["converged"]; !ok {
		t.Errorf("converged: got it judged, want not judged (%v)", notJudged)
	}
}
