package crtarget_test

import (
	"context"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
)

// childMaker gives each configmap a secret of the same name that it
// controls (an ownerReference with controller true). Secrets are no
// resource the cassettes record. So the replay serves them from empty and
// every secret is the controller's.
type childMaker struct{ mgr manager.Manager }

// Reconcile creates the child of the configmap req names, or makes an
// existing one controlled by it. A configmap deleted and created again
// under its name has another UID.
func (r *childMaker) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	c := r.mgr.GetClient()
	var cm corev1.ConfigMap
	if err := c.Get(ctx, req.NamespacedName, &cm); err != nil {
		return ctrl.Result{}, client.IgnoreNotFound(err)
	}
	var s corev1.Secret
	err := c.Get(ctx, req.NamespacedName, &s)
	switch {
	case apierrors.IsNotFound(err):
		s = corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: cm.Namespace, Name: cm.Name}, StringData: map[string]string{"parent": cm.Name}}
		if err := controllerutil.SetControllerReference(&cm, &s, r.mgr.GetScheme()); err != nil {
			return ctrl.Result{}, err
		}
		if err := c.Create(ctx, &s); apierrors.IsAlreadyExists(err) {
			return ctrl.Result{RequeueAfter: 100 * time.Millisecond}, nil // the cache has not seen it yet
		} else if err != nil {
			return ctrl.Result{}, err
		}
		return ctrl.Result{}, nil
	case err != nil:
		return ctrl.Result{}, err
	case metav1.IsControlledBy(&s, &cm):
		return ctrl.Result{}, nil
	}
	if err := controllerutil.SetControllerReference(&cm, &s, r.mgr.GetScheme()); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{}, c.Update(ctx, &s)
}

// podsMapped are the pods the Watches map function was handed, by key: a
// run's Exposed value.
type podsMapped struct {
	mu   sync.Mutex
	keys map[string]bool
}

// ownsTarget runs childMaker For configmaps, Owns secrets, and Watches
// pods. The pods' map function enqueues every configmap of the pod's
// namespace, read from the manager's cache.
var ownsTarget = fuzz.Target{Name: "owner", Doc: "a controller-runtime reconciler that gives each configmap an owned secret, watching pods",
	Run: func(ctx context.Context, env *fuzz.Env) error {
		// Secrets (and pods, for real-configmaps-expired.yaml) are no resource the
		// cassettes record. The replay serves them from empty and its discovery
		// lists them from the start. So controller-runtime's RESTMapper finds the
		// Secret and Pod kinds before any request for them, as against a real
		// apiserver.
		mgr, err := crtarget.NewManager(env, manager.Options{})
		if err != nil {
			return err
		}
		mapped := &podsMapped{keys: map[string]bool{}}
		env.Probe.Expose(mapped)
		toConfigMaps := func(ctx context.Context, o client.Object) []reconcile.Request {
			mapped.mu.Lock()
			mapped.keys[o.GetNamespace()+"/"+o.GetName()] = true
			mapped.mu.Unlock()
			var cms corev1.ConfigMapList
			if err := mgr.GetClient().List(ctx, &cms, client.InNamespace(o.GetNamespace())); err != nil {
				return nil
			}
			var out []reconcile.Request
			for _, cm := range cms.Items {
				out = append(out, reconcile.Request{NamespacedName: types.NamespacedName{Namespace: cm.Namespace, Name: cm.Name}})
			}
			return out
		}
		err = ctrl.NewControllerManagedBy(mgr).For(&corev1.ConfigMap{}).Owns(&corev1.Secret{}).
			Watches(&corev1.Pod{}, handler.EnqueueRequestsFromMapFunc(toConfigMaps)).
			WithOptions(crtarget.ControllerOptions()).Complete(&childMaker{mgr: mgr})
		if err != nil {
			return err
		}
		return mgr.Start(ctx)
	}}

// TestManagerOwnsWatches runs childMaker (For configmaps, Owns secrets,
// Watches pods) on every shipped cassette, both client paths. It checks
// that:
//   - every invariant holds;
//   - the run ends by itself after the cache synced;
//   - every configmap of the served final state has its secret, created
//     once (one stored create) and controlled by it (its UID);
//   - no secret is left without its parent's name;
//   - the map function saw every pod of the served final state.
func TestManagerOwnsWatches(t *testing.T) {
	eachSeed(t, ownsTarget, "owns/watches manager", "each configmap's secret created once, every pod mapped", func(t *testing.T, out *fuzz.Outcome, real time.Duration) {
		allHold(t, out)
		obs := out.Observation
		if !obs.EndedEarly || obs.SyncedAt < 0 {
			t.Errorf("got ended early %v, synced at %v, want the run to end by itself after the cache synced", obs.EndedEarly, obs.SyncedAt)
		}
		cms, children := finalState(obs, obs.Resource), finalState(obs, secrets)
		created := storedWrites(obs, secrets, "create")
		for k, cm := range cms {
			s, ok := children[k]
			if !ok {
				t.Errorf("configmap %s: got no secret, want its child", k)
				continue
			}
			if created[k] != 1 {
				t.Errorf("secret %s: got %d stored creates, want 1", k, created[k])
			}
			refs := parse(t, s).Metadata.OwnerReferences
			if len(refs) != 1 || refs[0].Kind != "ConfigMap" || refs[0].Name != cm.Name || refs[0].UID != cm.UID || refs[0].Controller == nil || !*refs[0].Controller {
				t.Errorf("secret %s: got ownerReferences %+v, want one controller reference to configmap %s uid %s", k, refs, cm.Name, cm.UID)
			}
		}
		if len(cms) == 0 {
			t.Errorf("got an empty final state, want the cassette's configmaps")
		}
		mapped, ok := obs.Exposed.(*podsMapped)
		if !ok {
			t.Fatalf("got exposed %T, want *podsMapped", obs.Exposed)
		}
		ps := finalState(obs, pods)
		for k := range ps {
			if !mapped.keys[k] {
				t.Errorf("pod %s: got it not mapped, want the Watches map function handed it", k)
			}
		}
		t.Logf("%d configmaps, %d secrets (%d creates, %d writes in all), %d pods mapped of %d; ended at %v virtual, %v real",
			len(cms), len(children), len(created), len(obs.Writes), len(mapped.keys), len(ps), obs.EndedAt, real.Round(time.Millisecond))
	})
}
