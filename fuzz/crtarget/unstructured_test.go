package crtarget_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
)

// newUnstructuredConfigMap returns an empty *unstructured.Unstructured of
// kind v1 ConfigMap.
func newUnstructuredConfigMap() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind("ConfigMap"))
	return u
}

// unstructuredAnnotator annotates each configmap once, reading it as
// unstructured (controller-runtime's unstructured cache: its own informer,
// served JSON) and writing a merge patch of the annotation.
type unstructuredAnnotator struct{ c client.Client }

// Reconcile annotates the configmap req names, if it is not yet.
func (r *unstructuredAnnotator) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	u := newUnstructuredConfigMap()
	if err := r.c.Get(ctx, req.NamespacedName, u); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	if u.GetAnnotations()[seenAnnotation] == "true" {
		return ctrl.Result{}, nil
	}
	patch := client.MergeFrom(u.DeepCopy())
	a := u.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	a[seenAnnotation] = "true"
	u.SetAnnotations(a)
	return ctrl.Result{}, r.c.Patch(ctx, u, patch)
}

// unstructuredTarget runs unstructuredAnnotator For an unstructured v1
// ConfigMap. cached says the manager's client reads unstructured objects
// from its cache (client.CacheOptions.Unstructured). Otherwise it reads
// them live from the apiserver, as controller-runtime's client does by
// default.
func unstructuredTarget(cached bool) fuzz.Target {
	return fuzz.Target{Name: "unstructured-annotator", Doc: "a controller-runtime reconciler on unstructured configmaps that annotates each",
		Run: func(ctx context.Context, env *fuzz.Env) error {
			mgr, err := crtarget.NewManager(env, manager.Options{Client: client.Options{Cache: &client.CacheOptions{Unstructured: cached}}})
			if err != nil {
				return err
			}
			err = ctrl.NewControllerManagedBy(mgr).For(newUnstructuredConfigMap()).WithOptions(crtarget.ControllerOptions()).
				Complete(&unstructuredAnnotator{c: mgr.GetClient()})
			if err != nil {
				return err
			}
			return mgr.Start(ctx)
		}}
}

// TestManagerUnstructured runs a controller For an unstructured v1
// ConfigMap on every shipped cassette, both client paths. Its client reads
// unstructured objects live (controller-runtime's default: one GET a
// reconcile) or from the manager's cache. It checks that:
//   - every invariant holds;
//   - the run ends by itself after the cache synced;
//   - every configmap of the served final state carries the annotation,
//     written by a stored patch of the controller's.
//
// The probe judges the manager's typed configmap informer, which
// NewManager wires. The controller's informer is the unstructured one
// beside it, a second configmap watch.
func TestManagerUnstructured(t *testing.T) {
	for _, tc := range []struct {
		reads  string
		cached bool
	}{{"reads live", false}, {"reads cached", true}} {
		eachSeed(t, unstructuredTarget(tc.cached), "unstructured manager "+tc.reads, "every configmap annotated by a patch", func(t *testing.T, out *fuzz.Outcome, real time.Duration) {
			allHold(t, out)
			obs := out.Observation
			if !obs.EndedEarly || obs.SyncedAt < 0 {
				t.Errorf("got ended early %v, synced at %v, want the run to end by itself after the cache synced", obs.EndedEarly, obs.SyncedAt)
			}
			patched := storedWrites(obs, obs.Resource, "patch")
			final := finalState(obs, obs.Resource)
			for k, o := range final {
				if o.Annotations[seenAnnotation] != "true" || patched[k] == 0 {
					t.Errorf("configmap %s: got annotations %v, %d stored patches, want %s=true by the controller's patch", k, o.Annotations, patched[k], seenAnnotation)
				}
			}
			if len(final) == 0 {
				t.Errorf("got an empty final state, want the cassette's configmaps")
			}
			watched, gets := 0, 0
			for _, r := range obs.Requests {
				switch {
				case r.Resource == "configmaps" && (r.Verb == "WATCH" || r.Verb == "WATCHLIST"):
					watched++
				case r.Resource == "configmaps" && r.Verb == "GET":
					gets++
				}
			}
			if watched < 2 {
				t.Errorf("got %d configmap watches, want 2 at least (the typed informer the probe judges and the unstructured one)", watched)
			}
			if tc.cached && gets != 0 {
				t.Errorf("got %d configmap GETs, want none (reads from the cache)", gets)
			}
			if !tc.cached && gets < len(patched) {
				t.Errorf("got %d configmap GETs, want one a reconcile at least (%d patched configmaps; reads live)", gets, len(patched))
			}
			t.Logf("%d configmaps, %d patched (%d writes in all), %d configmap watches, %d GETs; ended at %v virtual, %v real",
				len(final), len(patched), len(obs.Writes), watched, gets, obs.EndedAt, real.Round(time.Millisecond))
		})
	}
}
