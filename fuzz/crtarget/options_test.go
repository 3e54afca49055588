package crtarget_test

import (
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
)

// TestTargetWithOptions runs the annotator in a manager built from options
// of the test's. Every run's manager gets the scheme given, where a custom
// resource's Go type is registered. The metrics and health probe
// addresses asked for are NewManager's (no port). So a run stays as clean
// as Target's.
func TestTargetWithOptions(t *testing.T) {
	scheme := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(scheme); err != nil {
		t.Fatal(err)
	}
	var sameScheme, otherScheme atomic.Int64
	target := crtarget.TargetWithOptions("annotator-options", "the annotator in a manager of the test's options",
		manager.Options{Scheme: scheme, HealthProbeBindAddress: ":8081", Metrics: metricsserver.Options{BindAddress: ":8080"}},
		func(mgr manager.Manager) error {
			if mgr.GetScheme() == scheme {
				sameScheme.Add(1)
			} else {
				otherScheme.Add(1)
			}
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).WithOptions(crtarget.ControllerOptions()).
				Complete(&annotator{c: mgr.GetClient()})
		})
	eachSeed(t, target, "manager with options", "the options' scheme, no failure", func(t *testing.T, out *fuzz.Outcome, _ time.Duration) {
		if out.Failed() {
			t.Fatalf("got a failure, want none:\n%s", out.Report)
		}
		if otherScheme.Load() != 0 || sameScheme.Load() == 0 {
			t.Errorf("managers: got %d with the options' scheme and %d with another, want all with it", sameScheme.Load(), otherScheme.Load())
		}
	})
}

// TestNewManagerControllerOptions builds managers whose options set the
// controllers' concurrency, cache-sync timeout and recover-panic. It
// checks that:
//   - every run's manager keeps them, with name validation skipped
//     besides;
//   - a controller built without WithOptions (as an operator's
//     SetupWithManager builds it) is built and runs in every run of the
//     process (eight, one name), the manager's SkipNameValidation covering
//     it.
func TestNewManagerControllerOptions(t *testing.T) {
	recoverPanic := true
	want := config.Controller{MaxConcurrentReconciles: 3, CacheSyncTimeout: 7 * time.Minute, RecoverPanic: &recoverPanic}
	var kept, dropped atomic.Int64
	target := crtarget.TargetWithOptions("annotator-no-with-options", "the annotator built without WithOptions, controller options set",
		manager.Options{Controller: want},
		func(mgr manager.Manager) error {
			got := mgr.GetControllerOptions()
			if got.MaxConcurrentReconciles == want.MaxConcurrentReconciles && got.CacheSyncTimeout == want.CacheSyncTimeout &&
				got.RecoverPanic != nil && *got.RecoverPanic && got.SkipNameValidation != nil && *got.SkipNameValidation {
				kept.Add(1)
			} else {
				dropped.Add(1)
				t.Errorf("controller options: got %+v, want %+v with SkipNameValidation true", got, want)
			}
			return ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Complete(&annotator{c: mgr.GetClient()})
		})
	eachSeed(t, target, "controller options", "kept, controller built without WithOptions", func(t *testing.T, out *fuzz.Outcome, _ time.Duration) {
		allHold(t, out)
		if !out.Observation.EndedEarly || out.Observation.SyncedAt < 0 {
			t.Errorf("got ended early %v, synced at %v, want the run to end by itself after the cache synced", out.Observation.EndedEarly, out.Observation.SyncedAt)
		}
	})
	if kept.Load() < 8 || dropped.Load() != 0 {
		t.Errorf("managers: got %d keeping the controller options and %d not, want at least 8 and 0", kept.Load(), dropped.Load())
	}
}
