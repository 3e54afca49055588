package fuzz

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// errNotWritten is what writtenExists returns.
var errNotWritten = errors.New("the configmap the target writes is missing")

// writtenExists is a user invariant on the end state: the configmap the
// writers write (written()) is served.
var writtenExists = oracle.NewInvariant("written-exists", "the target's configmap ends served",
	func(truth *history.Log, _ *observe.Observation) error {
		for _, o := range truth.StateAt(truth.End()) {
			if o.Key() == written().Namespace+"/"+written().Name {
				return nil
			}
		}
		return errNotWritten
	})

// lateWriter runs the informer target and, after wait of virtual time
// with no request, creates the configmap: a controller whose requeue is
// due long after it went quiet (wait 0: never).
func lateWriter(wait time.Duration) Target {
	return writerTarget(fmt.Sprintf("late-writer-%v", wait), func(ctx context.Context, cs kubernetes.Interface) error {
		if wait == 0 {
			return nil
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return nil
		}
		_, err := cs.CoreV1().ConfigMaps("e2e-alpha").Create(ctx, written(), metav1.CreateOptions{})
		return err
	})
}

// TestEarlyEndConfirmed checks an end state broken on a run that ended
// early (caught up, a second quiet) is judged again on the run to its
// watchdog: a requeue due minutes later, as KubeRay's every 5 minutes,
// makes it hold. One the longer run breaks too is reported.
func TestEarlyEndConfirmed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		wait  time.Duration
		fails bool
	}{
		{name: "early end - the write comes 5 minutes after the target went quiet - held on the full run - pass", wait: 5 * time.Minute},
		{name: "early end - the write never comes - broken on the full run too - fail", fails: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCampaign(Options{Target: lateWriter(tc.wait), Cassettes: []string{"../cassettes/real-configmaps-pods-watchlist.yaml"},
				Invariants: []string{writtenExists.Name}, Extra: []oracle.Invariant{writtenExists}})
			if err != nil {
				t.Fatal(err)
			}
			out := c.checkDecoded(t, input{plan: faults.Plan{}}, "")
			if out.Failed() != tc.fails {
				t.Fatalf("failed: got %v, want %v\n%s", out.Failed(), tc.fails, out.Report)
			}
			if !tc.fails && out.Unconfirmed == "" {
				t.Errorf("Unconfirmed: got none, want the early run's report")
			}
			if !tc.fails && out.Observation.EndedEarly {
				t.Errorf("the judged run: got one that ended early, want the full run")
			}
		})
	}
}
