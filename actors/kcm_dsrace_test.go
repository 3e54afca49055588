package actors

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	appsv1client "k8s.io/client-go/kubernetes/typed/apps/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/util/flowcontrol"
	"k8s.io/klog/v2"
	appsdefaults "k8s.io/kubernetes/pkg/apis/apps/v1"
	"k8s.io/kubernetes/pkg/controller/daemon"
)

// The DaemonSet a test makes again: its name, and the UIDs of the old one
// and of the one made again under that name.
const (
	raceDS  = "agent"
	raceNS  = "default"
	oldUID  = types.UID("uid-old")
	madeUID = types.UID("uid-made-again")
)

// raceDaemonSet is DaemonSet agent, with uid, defaulted as kube-apiserver
// stores it: one pod on every node.
func raceDaemonSet(uid types.UID) *appsv1.DaemonSet {
	labels := map[string]string{"app": raceDS}
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: raceNS, Name: raceDS, UID: uid, Generation: 1},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "agent", Image: "agent:1"}}},
			},
		},
	}
	appsdefaults.SetObjectDefaults_DaemonSet(ds)
	return ds
}

// raceCluster is a fake clientset with one node and DaemonSet agent (old
// UID), with kube-apiserver's rules a DaemonSet controller relies on
// here: a generateName becomes a name, every object gets a UID, an
// update whose UID is not the stored object's is refused 409 (the
// precondition kube-apiserver takes from the body), and a DaemonSet update
// that changes nothing is not written (no watch event).
func raceCluster() *fake.Clientset {
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node-1", UID: "uid-node-1"}}
	cs := fake.NewClientset(node, raceDaemonSet(oldUID))
	var made atomic.Int64
	cs.PrependReactor("create", "*", func(a k8stesting.Action) (bool, runtime.Object, error) {
		obj, err := metaOf(a.(k8stesting.CreateAction).GetObject())
		if err != nil {
			return true, nil, err
		}
		n := made.Add(1)
		if obj.GetName() == "" && obj.GetGenerateName() != "" {
			obj.SetName(fmt.Sprintf("%s%05d", obj.GetGenerateName(), n))
		}
		if obj.GetUID() == "" {
			obj.SetUID(types.UID(fmt.Sprintf("uid-%d", n)))
		}
		return false, nil, nil
	})
	cs.PrependReactor("update", "daemonsets", func(a k8stesting.Action) (bool, runtime.Object, error) {
		ds := a.(k8stesting.UpdateAction).GetObject().(*appsv1.DaemonSet)
		stored, err := cs.Tracker().Get(appsv1.SchemeGroupVersion.WithResource("daemonsets"), ds.Namespace, ds.Name)
		if err != nil {
			return true, nil, err
		}
		s := stored.(*appsv1.DaemonSet)
		if s.UID != ds.UID {
			return true, nil, apierrors.NewConflict(appsv1.Resource("daemonsets"), ds.Name,
				fmt.Errorf("Precondition failed: UID in precondition: %s, UID in object meta: %s", ds.UID, s.UID))
		}
		if unchanged(s, ds) {
			return true, s, nil // kube-apiserver writes no unchanged object: no event
		}
		return false, nil, nil
	})
	return cs
}

// hookedClient is a clientset whose ControllerRevision creates call
// beforeCreate first, outside the fake's lock: while the request is on
// its way to the API server.
type hookedClient struct {
	*fake.Clientset
	beforeCreate func(*appsv1.ControllerRevision)
}

// AppsV1 is the fake's, with ControllerRevisions hooked.
func (c hookedClient) AppsV1() appsv1client.AppsV1Interface {
	return hookedApps{c.Clientset.AppsV1(), c.beforeCreate}
}

// hookedApps is an AppsV1Interface whose ControllerRevisions are hooked.
type hookedApps struct {
	appsv1client.AppsV1Interface
	beforeCreate func(*appsv1.ControllerRevision)
}

// ControllerRevisions is the fake's, its Create hooked.
func (a hookedApps) ControllerRevisions(ns string) appsv1client.ControllerRevisionInterface {
	return hookedRevisions{a.AppsV1Interface.ControllerRevisions(ns), a.beforeCreate}
}

// hookedRevisions calls beforeCreate before each Create.
type hookedRevisions struct {
	appsv1client.ControllerRevisionInterface
	beforeCreate func(*appsv1.ControllerRevision)
}

// Create calls beforeCreate, then the fake's Create.
func (r hookedRevisions) Create(ctx context.Context, cr *appsv1.ControllerRevision, o metav1.CreateOptions) (*appsv1.ControllerRevision, error) {
	r.beforeCreate(cr)
	return r.ControllerRevisionInterface.Create(ctx, cr, o)
}

// unchanged reports whether an update of stored to ds changes nothing but
// the fields the server owns (resourceVersion, managedFields).
func unchanged(stored, ds *appsv1.DaemonSet) bool {
	a, b := stored.DeepCopy(), ds.DeepCopy()
	for _, o := range []*appsv1.DaemonSet{a, b} {
		o.ResourceVersion, o.ManagedFields = "", nil
	}
	return apiequality.Semantic.DeepEqual(a, b)
}

// metaOf is obj's metadata.
func metaOf(obj runtime.Object) (metav1.Object, error) {
	m, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("%T has no object metadata", obj)
	}
	return m, nil
}

// makeAgain deletes DaemonSet agent and creates it again with madeUID, as
// `kubectl replace --force` does. It returns once the informers have told
// the controller.
func makeAgain(t *testing.T, cs *fake.Clientset) {
	t.Helper()
	ctx := context.Background()
	if err := cs.AppsV1().DaemonSets(raceNS).Delete(ctx, raceDS, metav1.DeleteOptions{}); err != nil {
		t.Errorf("delete DaemonSet: got error %v, want none", err)
	}
	if _, err := cs.AppsV1().DaemonSets(raceNS).Create(ctx, raceDaemonSet(madeUID), metav1.CreateOptions{}); err != nil {
		t.Errorf("create DaemonSet again: got error %v, want none", err)
	}
	synctest.Wait() // the informers have told the controller
}

// collectOrphans is the garbage collector's part: every 5 seconds until ctx
// ends, once the old DaemonSet is gone, it deletes the pods and
// ControllerRevisions it controlled.
func collectOrphans(ctx context.Context, cs *fake.Clientset) {
	for ctx.Err() == nil {
		time.Sleep(5 * time.Second)
		if ds, err := cs.AppsV1().DaemonSets(raceNS).Get(ctx, raceDS, metav1.GetOptions{}); err != nil || ds.UID == oldUID {
			continue
		}
		pods, _ := cs.CoreV1().Pods(raceNS).List(ctx, metav1.ListOptions{})
		for _, p := range pods.Items {
			if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == oldUID {
				_ = cs.CoreV1().Pods(raceNS).Delete(ctx, p.Name, metav1.DeleteOptions{})
			}
		}
		crs, _ := cs.AppsV1().ControllerRevisions(raceNS).List(ctx, metav1.ListOptions{})
		for _, cr := range crs.Items {
			if ref := metav1.GetControllerOf(&cr); ref != nil && ref.UID == oldUID {
				_ = cs.AppsV1().ControllerRevisions(raceNS).Delete(ctx, cr.Name, metav1.DeleteOptions{})
			}
		}
	}
}

// podsOf counts the pods controlled by uid.
func podsOf(t *testing.T, cs *fake.Clientset, uid types.UID) int {
	t.Helper()
	pods, err := cs.CoreV1().Pods(raceNS).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range pods.Items {
		if ref := metav1.GetControllerOf(&p); ref != nil && ref.UID == uid {
			n++
		}
	}
	return n
}

// TestDaemonSetMadeAgainDuringSync is the deterministic reproducer of
// docs/bugs-found.md's "a DaemonSet made again under its name can be left
// without pods". It runs kube-controller-manager's own DaemonSet
// controller (2 workers, as kube-controller-manager runs it) on client-go's
// fake clientset, in a synctest bubble. The DaemonSet is made again while
// a sync of the old one has a request in flight: the ControllerRevision
// it creates. The informers tell the controller at once. updateDaemonset
// or deleteDaemonset deletes the key's expectations; the sync, which read
// the old DaemonSet before, goes on and sets them, and creates a pod for
// the old UID. That pod never counts for the new one, so its expectations
// stay unsatisfied. Once they expire (5 minutes), nothing enqueues it. Ten
// minutes on, it has no pod. Made again while no sync runs, it gets its
// pod.
func TestDaemonSetMadeAgainDuringSync(t *testing.T) {
	tests := []struct {
		name string
		// duringSync makes the DaemonSet again while the sync's
		// ControllerRevision create is in flight; else once it has settled.
		duringSync bool
		gates      map[string]bool
		// wantStale is how many pods the controller creates for the old
		// UID once it is gone; wantPods, how many the one made again has.
		wantStale, wantPods int
	}{
		{name: "kcm daemonset - made again while no sync runs - gets its pod - pass", wantPods: 1},
		{name: "kcm daemonset - made again during a sync of the old one, stale consistency off - no pod - fail", duringSync: true,
			gates: map[string]bool{"StaleControllerConsistencyDaemonSet": false}, wantStale: 1, wantPods: 0},
		{name: "kcm daemonset - made again during a sync of the old one, defaults (stale consistency on) - no pod - fail", duringSync: true,
			wantStale: 1, wantPods: 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(klog.NewContext(context.Background(), klog.Background()))
				defer cancel()
				cs := raceCluster()
				var armed, gone atomic.Bool
				armed.Store(tc.duringSync)
				var stale atomic.Int64 // pods created for the old UID once it is gone
				cs.PrependReactor("create", "pods", func(a k8stesting.Action) (bool, runtime.Object, error) {
					if ref := metav1.GetControllerOf(a.(k8stesting.CreateAction).GetObject().(*corev1.Pod)); ref != nil && ref.UID == oldUID && gone.Load() {
						stale.Add(1)
					}
					return false, nil, nil
				})
				client := hookedClient{Clientset: cs, beforeCreate: func(cr *appsv1.ControllerRevision) {
					if ref := metav1.GetControllerOf(cr); ref != nil && ref.UID == oldUID && armed.CompareAndSwap(true, false) {
						gone.Store(true)
						makeAgain(t, cs) // while the old DaemonSet's revision is on its way
					}
				}}
				var wg sync.WaitGroup
				defer wg.Wait()
				defer cancel() // before the wait: the garbage collector's loop ends with ctx
				wg.Go(func() { collectOrphans(ctx, cs) })
				factory := informers.NewSharedInformerFactory(cs, 0)
				var dsc *daemon.DaemonSetsController
				err := withGates(tc.gates, func() error {
					var err error
					dsc, err = daemon.NewDaemonSetsController(ctx, factory.Apps().V1().DaemonSets(), factory.Apps().V1().ControllerRevisions(),
						factory.Core().V1().Pods(), factory.Core().V1().Nodes(), client, flowcontrol.NewBackOff(time.Second, 15*time.Minute))
					return err
				})
				if errors.Is(err, ErrUnknownGate) {
					t.Skipf("this k8s.io/kubernetes has no such gate: %v", err)
				}
				if err != nil {
					t.Fatal(err)
				}
				factory.Start(ctx.Done())
				defer factory.Shutdown()
				defer cancel() // before the factory's Shutdown, which waits for its informers
				wg.Go(func() { dsc.Run(ctx, 2) })
				time.Sleep(time.Minute) // the old DaemonSet synced, with its pod
				synctest.Wait()
				if !tc.duringSync {
					gone.Store(true)
					makeAgain(t, cs)
				}
				time.Sleep(10 * time.Minute) // past the expectations' 5 minutes
				synctest.Wait()
				if got := stale.Load(); got != int64(tc.wantStale) {
					t.Errorf("pods created for the old DaemonSet once it was gone: got %d, want %d", got, tc.wantStale)
				}
				if got := podsOf(t, cs, madeUID); got != tc.wantPods {
					t.Errorf("pods of the DaemonSet made again, 10 minutes on: got %d, want %d", got, tc.wantPods)
				}
			})
		})
	}
}
