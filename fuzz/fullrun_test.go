package fuzz

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
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

// errExtra is what noExtra returns.
var errExtra = errors.New("a configmap the target must not write is served")

// noExtra is a user invariant on the end state: the configmap extra() is
// not served.
var noExtra = oracle.NewInvariant("no-extra", "the target never writes the extra configmap",
	func(truth *history.Log, _ *observe.Observation) error {
		for _, o := range truth.StateAt(truth.End()) {
			if o.Key() == extra().Namespace+"/"+extra().Name {
				return errExtra
			}
		}
		return nil
	})

// extra is the configmap noExtra forbids.
func extra() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "e2e-alpha", Name: "lwreplay-extra"}}
}

// lateWriterOfExtra is lateWriter(5 minutes) that writes extra() too: its
// run to the watchdog mends the early run's end state and breaks another.
func lateWriterOfExtra() Target {
	return writerTarget("late-writer-of-extra", func(ctx context.Context, cs kubernetes.Interface) error {
		select {
		case <-time.After(5 * time.Minute):
		case <-ctx.Done():
			return nil
		}
		for _, cm := range []*corev1.ConfigMap{written(), extra()} {
			if _, err := cs.CoreV1().ConfigMaps("e2e-alpha").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
}

// TestEarlyEndConfirmed checks an end state broken on a run that ended
// early (caught up, a second quiet) is judged again on the run to its
// watchdog: a requeue due minutes later, as KubeRay's every 5 minutes,
// makes it hold. One the longer run breaks too is reported: from the
// early run when it breaks the same way, else from the longer run.
func TestEarlyEndConfirmed(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		target Target
		fails  bool
		full   bool   // the report is the full run's
		broken string // the invariant the report names
	}{
		{name: "early end - the write comes 5 minutes after the target went quiet - held on the full run - pass", target: lateWriter(5 * time.Minute)},
		{name: "early end - the write never comes - broken on the full run too, reported from the early run - fail", target: lateWriter(0), fails: true, broken: writtenExists.Name},
		{name: "early end - the late write breaks another invariant - reported from the full run - fail", target: lateWriterOfExtra(), fails: true, full: true, broken: noExtra.Name},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCampaign(Options{Target: tc.target, Cassettes: []string{"../cassettes/real-configmaps-pods-watchlist.yaml"},
				Invariants: []string{writtenExists.Name, noExtra.Name}, Extra: []oracle.Invariant{writtenExists, noExtra}})
			if err != nil {
				t.Fatal(err)
			}
			out := c.checkDecoded(t, input{plan: faults.Plan{}}, "")
			if out.Failed() != tc.fails {
				t.Fatalf("failed: got %v, want %v\n%s", out.Failed(), tc.fails, out.Report)
			}
			if tc.fails {
				if broken := out.Signature().Invariants; len(broken) != 1 || broken[0] != tc.broken {
					t.Errorf("broken: got %q, want only %s", broken, tc.broken)
				}
				if out.Observation.EndedEarly == tc.full {
					t.Errorf("the reported run: got one that ended early %v, want the full run %v", out.Observation.EndedEarly, tc.full)
				}
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
