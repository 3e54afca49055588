package fuzz

import (
	"context"
	"errors"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/faults"
)

// tickingWriter creates its configmap, then reads it every half second of
// virtual time until its context is cancelled: its run lasts to the
// watchdog, long in real time. With broken set it also reports an error to
// its probe, which breaks an invariant.
func tickingWriter(broken bool) Target {
	return Target{Name: "ticking-writer", Doc: "a writer of one configmap that then reads it every half second", Run: func(ctx context.Context, env *Env) error {
		cs, err := kubernetes.NewForConfig(env.Config)
		if err != nil {
			return err
		}
		cms := cs.CoreV1().ConfigMaps("e2e-alpha")
		if _, err := cms.Create(ctx, written(), metav1.CreateOptions{}); err != nil {
			return err
		}
		if broken {
			env.Probe.Error(errors.New("planted: the writer failed"))
		}
		for ctx.Err() == nil {
			time.Sleep(500 * time.Millisecond)
			_, _ = cms.Get(ctx, written().Name, metav1.GetOptions{})
		}
		return nil
	}}
}

// TestCheckOutOfTime checks an input whose check runs past its deadline (a
// fuzzing worker's input budget): it is OutOfTime and judged nothing, even
// when its target is broken. So a loaded machine ends no campaign with a
// report.
func TestCheckOutOfTime(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		broken     bool
		noDeadline bool
	}{
		{name: "check - deadline passed, clean target - out of time, no report - pass"},
		{name: "check - deadline passed, broken target - out of time, no report - pass", broken: true},
		{name: "check - no deadline, broken target - judged, reported - fail", broken: true, noDeadline: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCampaign(Options{Target: tickingWriter(tc.broken), Cassettes: []string{"../cassettes/real-configmaps-pods-watchlist.yaml"}})
			if err != nil {
				t.Fatal(err)
			}
			in := input{plan: faults.Plan{}, deadline: time.Now()}
			if tc.noDeadline {
				in.deadline = time.Time{}
			}
			out := c.checkDecoded(t, in, "")
			if tc.noDeadline {
				if out.OutOfTime || !out.Failed() {
					t.Errorf("got OutOfTime %v, failed %v, want a judged run that failed", out.OutOfTime, out.Failed())
				}
				return
			}
			if !out.OutOfTime {
				t.Errorf("OutOfTime: got false, want true")
			}
			if out.Report != "" || out.Failed() || len(out.Results) > 0 {
				t.Errorf("verdict: got report %q, %d results, want none", out.Report, len(out.Results))
			}
		})
	}
}
