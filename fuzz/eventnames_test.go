package fuzz

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/tools/record"

	"github.com/lwreplay/lwreplay/fuzz/harness"
)

// recordingReconciler is a target that reconciles one configmap once as a
// controller does, with client-go's event recorder (tools/record). It
// makes an Event when it starts, an update of the object, and an Event
// when done. The recorder names each Event <object>.<hex of
// time.Now().UnixNano()>.
var recordingReconciler = Target{Name: "recording-reconciler", Doc: "a reconcile that records two Events around an update",
	Run: func(ctx context.Context, env *Env) error {
		cs, err := env.Clientset()
		if err != nil {
			return err
		}
		env.Probe.SetStore(func() []any { return nil })
		env.Probe.SetSynced(func() bool { return true })
		broadcaster := record.NewBroadcaster(record.WithContext(ctx))
		defer broadcaster.Shutdown()
		broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
		recorder := broadcaster.NewRecorder(scheme.Scheme, corev1.EventSource{Component: "recording-reconciler"})
		cms := cs.CoreV1().ConfigMaps("default")
		cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "rec"}, Data: map[string]string{"state": "new"}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		// the reconcile
		recorder.Event(cm, corev1.EventTypeNormal, "Reconciling", "reconciling rec")
		cm.Data["state"] = "done"
		if cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			return err
		}
		recorder.Event(cm, corev1.EventTypeNormal, "Reconciled", "rec is done")
		<-ctx.Done()
		return nil
	}}

// TestEventNamesDistinct shows that two Events client-go's recorder
// records in one reconcile, an update between them, get distinct names in
// a run, as on a real cluster. Each request takes the replay's latency, so
// the clock the second reads has moved on. With no latency the clock
// stands still through the reconcile (nothing blocks for long enough).
// Then both get one name, and the second create is refused 409
// AlreadyExists.
func TestEventNamesDistinct(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		latency      time.Duration
		wantCreated  int // events stored
		wantRefused  int // events answered 409 AlreadyExists
		wantDistinct bool
	}{
		{name: "event names - two Events around an update, the default latency - distinct, both stored - pass",
			wantCreated: 2, wantDistinct: true},
		{name: "event names - two Events around an update, no latency (the clock stands still) - one name, 409 AlreadyExists - fail",
			latency: -1, wantCreated: 1, wantRefused: 1},
	}
	h := loadTargetHistory(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := harness.Observe(t, harness.Spec{History: h, Target: recordingReconciler, Latency: tc.latency, Watchdog: time.Minute})
			if obs == nil {
				t.Fatal("observation: got nil, want one")
			}
			created, refused := 0, 0
			names := map[string]bool{}
			for _, w := range obs.Writes {
				if w.Resource.Resource != "events" || w.Verb != "create" {
					continue
				}
				switch {
				case w.Code == 201:
					created++
					names[w.Key] = true
				case w.Code == 409 && w.Reason == "AlreadyExists":
					refused++
				}
			}
			if created != tc.wantCreated || refused != tc.wantRefused {
				t.Errorf("event creates: got %d stored, %d refused 409 AlreadyExists, want %d and %d (writes: %v)",
					created, refused, tc.wantCreated, tc.wantRefused, obs.Writes)
			}
			for key := range names {
				if !strings.HasPrefix(key, "default/rec.") {
					t.Errorf("event name: got %q, want default/rec.<hex of UnixNano>", key)
				}
			}
			if got := len(names) == 2; got != tc.wantDistinct {
				t.Errorf("distinct event names: got %v (%d names), want %v", got, len(names), tc.wantDistinct)
			}
		})
	}
}
