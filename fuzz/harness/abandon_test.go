package harness

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// abandonEnv makes TestAbandonedRunFailsNothing, run again, the process
// whose test completes while its run is left running.
const abandonEnv = "LWREPLAY_HARNESS_TEST_ABANDON"

// stubbornActor is an actor whose Run never returns once its context
// ends: the run's end fails its test ("Run had not returned").
func stubbornActor() actor.Actor {
	return actor.Actor{Name: "stubborn", Doc: "never returns (a test's fake)", Run: func(ctx context.Context, env actor.Env) error {
		<-ctx.Done()
		select {}
	}}
}

// TestAbandonedRunFailsNothing checks a run Observe returned without
// (past its deadline, or given up spinning) fails nothing once it ends,
// however it ends. Its test may have completed by then, and testing
// panics the process on a completed test's failure ("Fail in goroutine
// after … has completed"): a go test -fuzz worker's "hung or terminated
// unexpectedly". The run here spins past its deadline and is left; it
// then ends with an actor that never returned, which fails its test.
func TestAbandonedRunFailsNothing(t *testing.T) {
	if os.Getenv(abandonEnv) != "" {
		abandonedRun(t)
		return
	}
	tests := []struct {
		name string
		spin abandonKind
	}{
		{name: "abandoned run - left past its deadline, then fails at its end - its test's process lives - pass", spin: spinLate},
		{name: "abandoned run - given up spinning, then fails at its end - its test's process lives - pass", spin: spinGivenUp},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestAbandonedRunFailsNothing$", "-test.v")
			cmd.Env = append(os.Environ(), abandonEnv+"="+tc.spin.String())
			out, err := cmd.CombinedOutput()
			if err != nil || strings.Contains(string(out), "has completed") || !strings.Contains(string(out), "run left running ended") {
				t.Errorf("got exit %v, output:\n%s\nwant exit 0, the left run ended and no failure of a completed test", err, out)
			}
		})
	}
}

// abandonKind is how abandonedRun's run is left.
type abandonKind int

const (
	spinLate    abandonKind = iota // past its deadline
	spinGivenUp                    // given up spinning
)

// String names k for abandonEnv.
func (k abandonKind) String() string {
	if k == spinGivenUp {
		return "given-up"
	}
	return "late"
}

// abandonedRun is the process TestAbandonedRunFailsNothing runs: a test
// whose run is left running, ending after the test has completed.
func abandonedRun(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	var release atomic.Bool
	t.Run("left", func(t *testing.T) {
		s := Spec{History: h, Target: spinningTarget(true, &release), Actors: []actor.Actor{stubbornActor()}, Watchdog: time.Minute}
		if os.Getenv(abandonEnv) == spinGivenUp.String() {
			s.SpinBound = 200 * time.Millisecond
		} else {
			s.SpinBound, s.Deadline = time.Minute, time.Now()
		}
		if obs := Observe(t, s); obs.Spin == nil && !obs.OutOfTime {
			t.Errorf("got a run that ended, want one left running")
		}
	})
	release.Store(true) // the run goes on to its end, and fails its completed test
	time.Sleep(2 * time.Second)
	t.Log("run left running ended")
}
