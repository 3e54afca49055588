package crtarget_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
)

// seenAnnotation is what the test's reconciler writes on every configmap.
const seenAnnotation = "example.com/seen"

// annotator is a reconciler that annotates each configmap once, through
// the manager's client (whose writes of built-in kinds are protobuf).
type annotator struct{ c client.Client }

// Reconcile annotates the configmap req names, if it is not yet.
func (r *annotator) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.c.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if cm.Annotations[seenAnnotation] == "true" {
		return ctrl.Result{}, nil
	}
	if cm.Annotations == nil {
		cm.Annotations = map[string]string{}
	}
	cm.Annotations[seenAnnotation] = "true"
	return ctrl.Result{}, r.c.Update(ctx, &cm)
}

// annotatorTarget is a controller-runtime manager running annotator on
// configmaps.
var annotatorTarget = crtarget.Target("annotator", "a controller-runtime reconciler that annotates every configmap",
	func(mgr manager.Manager) error {
		return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).WithOptions(crtarget.ControllerOptions()).
			Complete(&annotator{c: mgr.GetClient()})
	})

// TestManagerSeeds runs the manager on every shipped cassette, both client
// paths, no fault. It checks that:
//   - each run ends by itself once the controller is quiet (not at the
//     watchdog);
//   - the manager's cache synced;
//   - every built-in invariant and crtarget's hold;
//   - every configmap of the served final state carries the annotation,
//     one stored update of the controller's each;
//   - the manager's reflectors take the input's client path.
func TestManagerSeeds(t *testing.T) {
	c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: fuzz.Glob("../../cassettes/real-configmaps-*.yaml"), Target: annotatorTarget, Extra: crtarget.Invariants()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range c.Cassettes() {
		for _, wl := range []byte{0, 1} {
			in := []byte{byte(i), wl}
			t.Run(fmt.Sprintf("manager - seed %q - ends by itself, synced, every configmap annotated - pass", in), func(t *testing.T) {
				out := c.Check(t, in)
				if out.Failed() {
					t.Fatalf("got a failure, want none:\n%s", out.Report)
				}
				obs := out.Observation
				if !obs.EndedEarly || obs.SyncedAt < 0 {
					t.Errorf("got ended early %v, synced at %v, want the run to end by itself after the cache synced", obs.EndedEarly, obs.SyncedAt)
				}
				updated := map[string]int{}
				for _, w := range obs.Writes {
					if w.Stored() && w.Verb == "update" {
						updated[w.Key]++
					}
				}
				served, _ := obs.Served.Log(obs.Resource)
				final := served.StateAt(served.End())
				for _, o := range final {
					if o.Annotations[seenAnnotation] != "true" {
						t.Errorf("configmap %s: got annotations %v, want %s=true", o.Key(), o.Annotations, seenAnnotation)
					}
					if updated[o.Key()] != 1 {
						t.Errorf("configmap %s: got %d stored updates of the controller's, want 1", o.Key(), updated[o.Key()])
					}
				}
				if len(final) == 0 {
					t.Errorf("got an empty final state, want the cassette's configmaps")
				}
				// the manager's reflectors follow the run's client path
				verbs := map[string]int{}
				for _, r := range obs.Requests {
					if r.Resource == "configmaps" {
						verbs[r.Verb]++
					}
				}
				if watchList := wl == 1; (verbs["WATCHLIST"] > 0) != watchList || (verbs["LIST"] > 0) == watchList {
					t.Errorf("configmaps requests: got %v, want WatchList %v (and LIST %v)", verbs, watchList, !watchList)
				}
			})
		}
	}
}
