package crtarget_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"sort"
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/replayer"
)

// notFoundReturner is the annotator with a planted bug. It returns the
// NotFound of a deleted configmap as its error, so controller-runtime
// retries the key with backoff for ever.
type notFoundReturner struct{ annotator }

// Reconcile annotates the configmap req names, returning every error.
func (r *notFoundReturner) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var cm corev1.ConfigMap
	if err := r.c.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, err // the bug: client.IgnoreNotFound forgotten
	}
	return r.annotator.Reconcile(ctx, req)
}

// TestLastReconcileSucceeded runs last-reconcile-succeeded (added with
// Extra: crtarget.Invariants()) on the annotator and on its planted
// NotFound-returning variant. It runs every shipped cassette, both client
// paths, at the recorded pace. (At the default pace, every change has
// happened before the controller starts, and it sees no delete.)
// On the annotator it holds, judged, on runs that end by themselves.
// Every cassette of the planted one deletes configmaps while the manager
// watches. There it fails, naming each configmap deleted and no other:
// its controller reconciled it once deleted.
func TestLastReconcileSucceeded(t *testing.T) {
	build := func(r func(c client.Client) reconcile.Reconciler) func(manager.Manager) error {
		return func(mgr manager.Manager) error {
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(r(mgr.GetClient()))
		}
	}
	for _, tc := range []struct {
		name, situation, want string
		target                fuzz.Target
		planted               bool
	}{
		{name: "annotator", situation: "NotFound ignored", want: "pass",
			target: crtarget.Target("annotator-checked", "the annotator", build(func(c client.Client) reconcile.Reconciler { return &annotator{c: c} }))},
		{name: "not-found-returner", situation: "NotFound of a deleted configmap returned", want: "fail", planted: true,
			target: crtarget.Target("not-found-returner", "the annotator returning NotFound", build(func(c client.Client) reconcile.Reconciler { return &notFoundReturner{annotator{c: c}} }))},
		{name: "not-found-returner, own logger", situation: "NotFound returned, logged through its LogConstructor to log.Log (as KubeRay's)", want: "fail", planted: true,
			target: crtarget.Target("not-found-returner-own-logger", "the annotator returning NotFound, logging on its own", func(mgr manager.Manager) error {
				return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).
					WithOptions(controller.Options{LogConstructor: func(*reconcile.Request) logr.Logger { return ctrllog.Log.WithName("own") }}).
					Complete(&notFoundReturner{annotator{c: mgr.GetClient()}})
			})},
	} {
		c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: fuzz.Glob(shipped), Target: tc.target, Extra: crtarget.Invariants(), Known: crtarget.KnownFindings(),
			Pace: replayer.Pace{Mode: replayer.PaceRecorded}})
		if err != nil {
			t.Fatal(err)
		}
		for i := range c.Cassettes() {
			for _, wl := range []byte{0, 1} {
				in := []byte{byte(i), wl}
				t.Run(fmt.Sprintf("last-reconcile-succeeded - %s, %s, seed %q - %s", tc.name, tc.situation, in, tc.want), func(t *testing.T) {
					out := c.Check(t, in)
					obs := out.Observation
					if why, ok := out.NotJudged[crtarget.LastReconcileSucceeded.Name]; ok {
						t.Fatalf("got not judged (%s), want judged", why)
					}
					deleted := deletedKeys(obs)
					got := out.Results[crtarget.LastReconcileSucceeded.Name]
					rec, ok := obs.Exposed.(*crtarget.Reconciles)
					if !ok {
						t.Fatalf("got exposed %T, want *crtarget.Reconciles", obs.Exposed)
					}
					var failing []string
					for _, f := range rec.Failing() {
						failing = append(failing, f.Key)
					}
					for name, err := range out.Results {
						if err != nil && name != crtarget.LastReconcileSucceeded.Name {
							t.Errorf("%s: got %v, want it to hold", name, err)
						}
					}
					if !tc.planted {
						if got != nil || len(failing) > 0 {
							t.Errorf("got %v (failing %v), want it to hold", got, failing)
						}
						if !obs.EndedEarly {
							t.Errorf("got a run to the watchdog, want it to end by itself")
						}
						return
					}
					if len(deleted) == 0 {
						t.Fatalf("got no configmap deleted while the manager watched, want some (the cassettes delete some at the recorded pace)")
					}
					if !errors.Is(got, crtarget.ErrReconcileFailing) {
						t.Errorf("got %v, want an error wrapping %v", got, crtarget.ErrReconcileFailing)
					}
					if !slices.Equal(failing, deleted) {
						t.Errorf("failing keys: got %v, want the deleted configmaps %v", failing, deleted)
					}
					if !obs.EndedEarly {
						t.Errorf("got a run to the watchdog (ended at %v), want it to end once the failing keys failed %d times in a row", obs.EndedAt, 12)
					}
					t.Logf("%d failing keys; ended at %v (early %v)", len(failing), obs.EndedAt, obs.EndedEarly)
				})
			}
		}
	}
}

// deletedKeys returns the configmaps the manager's cache was told of (the
// probe's deliveries) and gone from the served final state, sorted. Those
// are the ones its controller reconciled once deleted.
func deletedKeys(obs *fuzz.Observation) []string {
	final := finalState(obs, obs.Resource)
	seen := map[string]bool{}
	for _, d := range obs.Deliveries {
		if _, ok := final[d.Key]; !ok && d.Key != "" {
			seen[d.Key] = true
		}
	}
	out := slices.Collect(maps.Keys(seen))
	sort.Strings(out)
	return out
}
