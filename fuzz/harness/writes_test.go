package harness

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// secrets is core v1 secrets, a resource the shipped cassettes do not
// record: a write makes it.
var secrets = history.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}

// writingTarget is a target that writes once its informer has synced:
//   - it creates the configmap default/made and updates it;
//   - it creates the secret default/made (a resource the history does not
//     record);
//   - it tries to create the configmap again (refused AlreadyExists).
//
// With frozen, the store it registers is a copy of its informer's taken
// at the sync, blind to its own writes.
func writingTarget(frozen bool) Target {
	return Target{Name: "writing", Doc: "an informer that writes after its sync", Run: func(ctx context.Context, env *Env) error {
		cs, inf, stop, err := syncedConfigMaps(ctx, env)
		if err != nil || inf == nil {
			return err
		}
		defer stop()
		if frozen {
			at := inf.GetStore().List()
			env.Probe.SetStore(func() []any { return at })
		}
		cms := cs.CoreV1().ConfigMaps("default")
		made, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made"}, Data: map[string]string{"k": "1"}}, metav1.CreateOptions{})
		if err != nil {
			return err
		}
		made.Data["k"] = "2"
		if _, err := cms.Update(ctx, made, metav1.UpdateOptions{}); err != nil {
			return err
		}
		if _, err := cs.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "made"}}, metav1.CreateOptions{}); err != nil {
			return err
		}
		_, _ = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "made"}}, metav1.CreateOptions{}) // AlreadyExists
		<-ctx.Done()
		return nil
	}}
}

// syncedConfigMaps starts an informer of configmaps on env's clientset,
// registered with env's probe, and waits for its sync. The informer is nil
// when ctx ended first. stop shuts it down.
func syncedConfigMaps(ctx context.Context, env *Env) (cs kubernetes.Interface, inf cache.SharedIndexInformer, stop func(), err error) {
	if cs, err = env.Clientset(); err != nil {
		return nil, nil, nil, err
	}
	factory := informers.NewSharedInformerFactory(cs, 0)
	inf = factory.Core().V1().ConfigMaps().Informer()
	if _, err := env.Probe.AddEventHandler(inf, nil); err != nil {
		return nil, nil, nil, err
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		factory.Shutdown()
		return nil, nil, nil, nil
	}
	return cs, inf, factory.Shutdown, nil
}

// TestObserveWrites runs a writing target. It checks that:
//   - the Observation holds its writes in the order the replay answered
//     them;
//   - the served history of every resource it wrote holds them;
//   - the run's truth holds those to its resource;
//   - the built-in converged judges the target's store against that
//     truth, writes included.
func TestObserveWrites(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	tests := []struct {
		name          string
		frozen        bool
		wantConverged bool
	}{
		{name: "observe writes - store follows the target's writes - converged with them - pass", frozen: false, wantConverged: true},
		{name: "observe writes - store blind to the target's writes - not converged, the diff names the write - fail", frozen: true, wantConverged: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			obs := Observe(t, Spec{History: h, Target: writingTarget(tc.frozen), Watchdog: 2 * time.Minute})
			if obs == nil {
				t.Fatal("observation: got nil, want one")
			}
			if len(obs.Errors) > 0 {
				t.Fatalf("target errors: got %q, want none", obs.Errors)
			}
			if !obs.WritesLogged {
				t.Errorf("writes logged: got false, want true (a model replay logs them)")
			}
			var got []string
			for _, w := range obs.Writes {
				got = append(got, w.Verb+" "+w.Resource.Resource+" "+w.Key+" "+w.Reason)
			}
			want := []string{"create configmaps default/made ", "update configmaps default/made ", "create secrets default/made ", "create configmaps default/made AlreadyExists"}
			if strings.Join(got, "|") != strings.Join(want, "|") {
				t.Fatalf("writes: got %q, want %q", got, want)
			}
			create, update := obs.Writes[0], obs.Writes[1]
			if create.Code != 201 || update.Code != 200 || update.RVBefore != create.RVAfter || update.RVAfter == update.RVBefore || obs.Writes[3].Code != 409 {
				t.Errorf("writes: got %v, want 201, then 200 from the created rv to a new one, then 409", obs.Writes)
			}
			for i := 1; i < len(obs.Writes); i++ {
				if obs.Writes[i].At < obs.Writes[i-1].At || obs.Writes[i].At > obs.EndedAt {
					t.Errorf("write %d: got at %v after %v (run ended %v), want in order within the run", i, obs.Writes[i].At, obs.Writes[i-1].At, obs.EndedAt)
				}
			}

			// the truth (the run's resource's log) and the served history of
			// the other resource hold the writes that stored something
			if obs.Served == nil {
				t.Fatal("served: got nil, want the served history")
			}
			if l, ok := obs.Served.Log(obs.Resource); !ok || l != obs.TruthLog {
				t.Errorf("truth: got %p, want the served history's log of %s (%p)", obs.TruthLog, obs.Resource, l)
			}
			final := map[string]string{}
			for _, o := range obs.TruthLog.StateAt(obs.TruthLog.End()) {
				final[o.Key()] = o.ResourceVersion
			}
			if final["default/made"] != update.RVAfter {
				t.Errorf("truth's final state: got default/made at rv %q, want the update's %q", final["default/made"], update.RVAfter)
			}
			sl, ok := obs.Served.Log(secrets)
			if !ok || sl.End() != 1 || sl.Events[0].Object.Key() != "default/made" || sl.Events[0].RV() != obs.Writes[2].RVAfter {
				t.Errorf("served secrets: got %v (found %v), want the created secret at rv %s", sl, ok, obs.Writes[2].RVAfter)
			}

			err := oracle.Judge(obs, "converged")["converged"]
			if (err == nil) != tc.wantConverged {
				t.Fatalf("converged: got %v, want held %v", err, tc.wantConverged)
			}
			if !tc.wantConverged && (!errors.Is(err, oracle.ErrNotConverged) || !strings.Contains(err.Error(), "default/made")) {
				t.Errorf("converged: got %v, want ErrNotConverged naming default/made", err)
			}
		})
	}
}
