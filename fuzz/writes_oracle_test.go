package fuzz

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/fuzz/targets"
)

// writerTarget runs the informer target beside a writer of one configmap
// of its own (ns e2e-alpha, name lwreplay-written). The writer uses a
// clientset of env.Config, started once the informer has synced.
func writerTarget(name string, write func(ctx context.Context, cs kubernetes.Interface) error) Target {
	informer, _ := targets.Lookup("informer")
	return Target{Name: name, Doc: "the informer target beside a writer: " + name, Run: func(ctx context.Context, env *Env) error {
		cs, err := kubernetes.NewForConfig(env.Config)
		if err != nil {
			return err
		}
		done := make(chan error, 1)
		go func() {
			time.Sleep(time.Second) // after the informer synced (virtual time)
			done <- write(ctx, cs)
		}()
		err = informer.Run(ctx, env)
		if werr := <-done; werr != nil && ctx.Err() == nil {
			env.Probe.Error(werr)
		}
		return err
	}}
}

// written is the configmap the writers write.
func written() *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "e2e-alpha", Name: "lwreplay-written"}, Data: map[string]string{"v": "0"}}
}

// flipper writes its configmap n times, 100 ms apart, flipping an
// annotation back and forth: a reconciler fighting itself. Each update is
// from the object the last one stored, so each is stored.
func flipper(n int) func(ctx context.Context, cs kubernetes.Interface) error {
	return func(ctx context.Context, cs kubernetes.Interface) error {
		cms := cs.CoreV1().ConfigMaps("e2e-alpha")
		cm, err := cms.Create(ctx, written(), metav1.CreateOptions{})
		if err != nil {
			return err
		}
		for i := range n {
			cm.Annotations = map[string]string{"flip": fmt.Sprint(i % 2)}
			if cm, err = cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
				return err
			}
			time.Sleep(100 * time.Millisecond)
		}
		<-ctx.Done()
		return nil
	}
}

// staleUpdater updates its configmap once, then n times more from the copy
// it read before, 100 ms apart, never reading it again. Each is answered
// 409 Conflict.
func staleUpdater(n int) func(ctx context.Context, cs kubernetes.Interface) error {
	return func(ctx context.Context, cs kubernetes.Interface) error {
		cms := cs.CoreV1().ConfigMaps("e2e-alpha")
		cm, err := cms.Create(ctx, written(), metav1.CreateOptions{})
		if err != nil {
			return err
		}
		fresh := cm.DeepCopy()
		fresh.Data["v"] = "1"
		if _, err := cms.Update(ctx, fresh, metav1.UpdateOptions{}); err != nil {
			return err
		}
		for i := range n {
			cm.Data["v"] = fmt.Sprint(i + 2)
			if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err == nil {
				return errors.New("stale update: got it stored, want 409 Conflict")
			}
			time.Sleep(100 * time.Millisecond)
		}
		<-ctx.Done()
		return nil
	}
}

// blindCreator creates its configmap, then n times more, 200 ms apart
// (5 a second), never looking it up: each is answered 409 AlreadyExists.
func blindCreator(n int) func(ctx context.Context, cs kubernetes.Interface) error {
	return func(ctx context.Context, cs kubernetes.Interface) error {
		cms := cs.CoreV1().ConfigMaps("e2e-alpha")
		if _, err := cms.Create(ctx, written(), metav1.CreateOptions{}); err != nil {
			return err
		}
		for range n {
			if _, err := cms.Create(ctx, written(), metav1.CreateOptions{}); err == nil {
				return errors.New("second create: got it stored, want 409 AlreadyExists")
			}
			time.Sleep(200 * time.Millisecond)
		}
		<-ctx.Done()
		return nil
	}
}

// TestWritesOracleOnRealRuns runs targets that write against the model
// apiserver's replay:
//   - one that flips an annotation 40 times in 4 s breaks no-write-storm;
//   - one that keeps updating from a stale copy breaks no-conflict-loop;
//   - one that keeps creating what it made breaks no-create-loop;
//   - the children controller holds all three.
func TestWritesOracleOnRealRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		target     Target
		wantStorm  error
		wantLoop   error
		wantCreate error
		wantText   string
		wantWrites int // at least
	}{
		{name: "writes oracle - a writer flipping an annotation 40 times in 4 s - no-write-storm fails - fail",
			target: writerTarget("flipper", flipper(40)), wantStorm: oracle.ErrWriteStorm,
			wantText: "31 writes of configmaps e2e-alpha/lwreplay-written", wantWrites: 31}, // the run ends at the 31st: its first broken bound
		{name: "writes oracle - a writer updating 25 times from a stale copy - no-conflict-loop fails - fail",
			target: writerTarget("stale-updater", staleUpdater(25)), wantLoop: oracle.ErrConflictLoop,
			wantText: "21 writes of configmaps e2e-alpha/lwreplay-written in a row answered 409 Conflict", wantWrites: 23}, // the create, the update, 21 conflicts: the run ends there
		{name: "writes oracle - a writer creating its configmap 25 times more, 5 a second - no-create-loop fails - fail",
			target: writerTarget("blind-creator", blindCreator(25)), wantCreate: oracle.ErrCreateLoop,
			wantText: "21 writes of configmaps e2e-alpha/lwreplay-written in a row answered 409 AlreadyExists", wantWrites: 22}, // the create, 21 refused: the run ends there
		{name: "writes oracle - the children controller - all hold - pass", target: childrenTarget("children", false), wantWrites: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Target: tc.target, WatchList: true, Level: Typed})
			if !obs.WritesLogged || len(obs.Writes) < tc.wantWrites {
				t.Fatalf("writes: got %d (logged %v), want at least %d logged", len(obs.Writes), obs.WritesLogged, tc.wantWrites)
			}
			got := oracle.Judge(obs, "no-write-storm", "no-conflict-loop", "no-create-loop")
			for name, want := range map[string]error{"no-write-storm": tc.wantStorm, "no-conflict-loop": tc.wantLoop, "no-create-loop": tc.wantCreate} {
				err := got[name]
				if (want == nil) != (err == nil) || !errors.Is(err, want) {
					t.Errorf("%s: got %v, want %v; writes: %v", name, err, want, obs.Writes)
					continue
				}
				if err != nil {
					t.Logf("%s: %v (signature %s)", name, err, oracle.SignatureOf(map[string]error{name: err}))
				}
				if err != nil && !strings.Contains(err.Error(), tc.wantText) {
					t.Errorf("%s: got %q, want it to contain %q", name, err, tc.wantText)
				}
			}
			if errs := obs.Errors; len(errs) > 0 {
				t.Errorf("target errors: got %v, want none", errs)
			}
		})
	}
}
