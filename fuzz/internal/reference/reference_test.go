package reference

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// pollingWriter creates a configmap, then reads it every half second of
// virtual time until its context is cancelled: a writing run that lasts
// to the watchdog.
var pollingWriter = harness.Target{Name: "polling-writer", Doc: "a writer of one configmap that then reads it every half second", Run: func(ctx context.Context, env *harness.Env) error {
	cs, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		return err
	}
	cms := cs.CoreV1().ConfigMaps("e2e-alpha")
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "e2e-alpha", Name: "lwreplay-written"}}
	if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		return err
	}
	for ctx.Err() == nil {
		time.Sleep(500 * time.Millisecond)
		_, _ = cms.Get(ctx, cm.Name, metav1.GetOptions{})
	}
	return nil
}}

// TestGetOutOfTime checks a reference run cut short at its deadline is not
// kept: Get says so, and a later call without a deadline makes the
// reference.
func TestGetOutOfTime(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("real-configmaps-pods-watchlist.yaml"))
	spec := harness.Spec{History: h, Target: pollingWriter, Watchdog: time.Minute}
	var r One
	cut := spec
	cut.Deadline = time.Now()
	cut.Watchdog = 0 // 15 minutes of polling: long past the deadline in real time
	if ref, ok := r.Get(t, cut); ok || ref != nil {
		t.Fatalf("Get past the deadline: got %v, ok %v, want nil, false", ref, ok)
	}
	if r.made || len(r.runs) != 0 {
		t.Errorf("after a cut run: got made %v, %d runs kept, want false, 0", r.made, len(r.runs))
	}
	ref, ok := r.Get(t, spec)
	if !ok || ref == nil {
		t.Fatalf("Get without a deadline: got %v, ok %v, want a reference", ref, ok)
	}
	if ref.Writes != 1 {
		t.Errorf("reference writes: got %d, want 1", ref.Writes)
	}
}
