package crtarget_test

import (
	"context"
	"errors"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/bubble"
)

// stampedAnnotation is what stamper writes time.Now() into.
const stampedAnnotation = "lwreplay.example/stamped-at"

// stamper is a planted write loop. A reconcile of any configmap makes one
// child configmap (default/stamp). A reconcile of the child stamps
// time.Now() into it, whose own event reconciles it again. So each write
// of the child has a new value.
type stamper struct{ c client.Client }

// Reconcile makes the child, or stamps it with the time.
func (r *stamper) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	now := time.Now().Format(time.RFC3339Nano)
	if req.Namespace != "default" || req.Name != "stamp" {
		child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "stamp", Annotations: map[string]string{stampedAnnotation: now}}}
		return ctrl.Result{}, client.IgnoreAlreadyExists(r.c.Create(ctx, child))
	}
	var child corev1.ConfigMap
	if err := r.c.Get(ctx, req.NamespacedName, &child); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if child.Annotations == nil {
		child.Annotations = map[string]string{}
	}
	child.Annotations[stampedAnnotation] = now
	return ctrl.Result{}, r.c.Update(ctx, &child)
}

// stamperTarget is a controller-runtime manager running stamper on
// configmaps.
var stamperTarget = crtarget.Target("stamper", "a reconciler that stamps time.Now() into its child on each of its reconciles (a write loop)",
	func(mgr manager.Manager) error {
		// without the priority queue: its shutdown can deadlock
		// (controller-runtime#3538, a known finding), and a run given up
		// spinning is judged by no-spin alone
		opts, off := crtarget.ControllerOptions(), false
		opts.UsePriorityQueue = &off
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).WithOptions(opts).Complete(&stamper{c: mgr.GetClient()})
	})

// stamperHistory is the shipped cassette the write-loop runs replay.
func stamperHistory(tb testing.TB) *history.History {
	tb.Helper()
	files, err := cassette.LoadAll("../../cassettes/real-configmaps-pods-list-pages.yaml")
	if err != nil {
		tb.Fatal(err)
	}
	h, err := history.Build(files...)
	if err != nil {
		tb.Fatal(err)
	}
	return h
}

// TestWriteLoopEndsAtItsBound shows a reconciler that stamps time.Now()
// into its child on every reconcile stopped at no-write-storm's bound. It
// stops within a minute of virtual time, not at the 15-minute watchdog.
func TestWriteLoopEndsAtItsBound(t *testing.T) {
	obs := harness.Observe(t, harness.Spec{History: stamperHistory(t), Target: stamperTarget, WatchList: true})
	if obs == nil || obs.BoundEnd == nil || obs.BoundEnd.Invariant != "no-write-storm" {
		t.Fatalf("write loop - a reconciler stamping time.Now() - fail: got bound end %+v, want no-write-storm (ended at %v, %d writes, spin %v, %v)", obs.BoundEnd, obs.EndedAt, len(obs.Writes), obs.Spin, oracle.Judge(obs))
	}
	if err := oracle.Judge(obs, "no-write-storm")["no-write-storm"]; !errors.Is(err, oracle.ErrWriteStorm) {
		t.Errorf("no-write-storm: got %v, want %v", err, oracle.ErrWriteStorm)
	}
	if obs.BoundEnd.At > time.Minute || obs.EndedAt > obs.BoundEnd.At+observe.StopGrace {
		t.Errorf("ended at: got %v (bound crossed at %v), want crossed within a minute and ended by the stop grace after", obs.EndedAt, obs.BoundEnd.At)
	}
}

// BenchmarkWriteLoopRun measures whole runs of the stamper (a planted
// write loop), one at a time as a fuzz worker makes them. It reports
// ms/run, and max-ms/run, the slowest run's real time. A run that goes on
// to the watchdog took about 9 s before runs ended at their first broken
// bound.
func BenchmarkWriteLoopRun(b *testing.B) {
	h := stamperHistory(b)
	spec := harness.Spec{History: h, Target: stamperTarget, WatchList: true}
	var slowest time.Duration
	err := bubble.Host(func(t *testing.T) {
		harness.Observe(t, spec) // the write engine's one-time setup
		b.ResetTimer()
		for b.Loop() {
			start := time.Now()
			if obs := harness.Observe(t, spec); obs == nil || obs.BoundEnd == nil {
				t.Errorf("run: got no bound end, want no-write-storm to end it")
			}
			slowest = max(slowest, time.Since(start))
		}
	})
	if err != nil {
		b.Fatalf("host: got error %v, want none", err)
	}
	b.ReportMetric(float64(slowest.Microseconds())/1000, "max-ms/run")
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/run")
}
