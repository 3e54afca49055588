package kvstore

import (
	"context"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// The objects of the reconciler's tests: KVStore e2e/demo.
const testNS, testName = "e2e-kvstore", "demo"

func testKV(replicas int32) *KVStore {
	return &KVStore{
		TypeMeta:   metav1.TypeMeta{APIVersion: GroupVersion.String(), Kind: "KVStore"},
		ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: testName, UID: "kv-uid", Generation: 1},
		Spec:       KVStoreSpec{Replicas: replicas},
	}
}

// testSTS is the KVStore's StatefulSet, as the reconciler makes it, at
// spec.replicas specReplicas with status replicas and readyReplicas.
func testSTS(t *testing.T, kv *KVStore, specReplicas, replicas, ready int32) *appsv1.StatefulSet {
	t.Helper()
	s, err := NewScheme()
	if err != nil {
		t.Fatal(err)
	}
	r := New(fake.NewClientBuilder().WithScheme(s).Build(), nil)
	sts, err := r.statefulSet(kv)
	if err != nil {
		t.Fatal(err)
	}
	sts.Spec.Replicas = &specReplicas
	sts.Status = appsv1.StatefulSetStatus{Replicas: replicas, ReadyReplicas: ready}
	return sts
}

func testPod(ordinal int) *corev1.Pod {
	kv := testKV(0)
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: podName(kv, ordinal), Labels: selector(kv)}}
}

func testPVC(ordinal int) *corev1.PersistentVolumeClaim {
	kv := testKV(0)
	return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: testNS, Name: VolumeName + "-" + podName(kv, ordinal), Labels: selector(kv), UID: types.UID("pvc-" + podName(kv, ordinal))}}
}

// TestReconcile runs one reconcile of the correct operator and of the
// planted one, on a fake client (a cache that is the truth). It
// checks what each leaves.
func TestReconcile(t *testing.T) {
	tests := []struct {
		name       string
		kv         *KVStore
		sts        func(t *testing.T, kv *KVStore) *appsv1.StatefulSet // nil: none yet
		pods, pvcs []int                                               // ordinals that exist
		planted    bool
		// want
		replicas  int32
		ready     metav1.ConditionStatus
		claims    []int // ordinals whose PVC is left
		requeue   bool
		wantOwned bool
	}{
		{name: "reconcile - a new kvstore - its service and statefulset made, not ready - pass", kv: testKV(3),
			replicas: 3, ready: metav1.ConditionFalse, wantOwned: true},
		{name: "reconcile - every replica ready - Ready true - pass", kv: testKV(3),
			sts:  func(t *testing.T, kv *KVStore) *appsv1.StatefulSet { return testSTS(t, kv, 3, 3, 3) },
			pods: []int{0, 1, 2}, pvcs: []int{0, 1, 2}, replicas: 3, ready: metav1.ConditionTrue, claims: []int{0, 1, 2}},
		{name: "reconcile - two of three ready - Ready false - pass", kv: testKV(3),
			sts:  func(t *testing.T, kv *KVStore) *appsv1.StatefulSet { return testSTS(t, kv, 3, 3, 2) },
			pods: []int{0, 1, 2}, pvcs: []int{0, 1, 2}, replicas: 3, ready: metav1.ConditionFalse, claims: []int{0, 1, 2}},
		{name: "reconcile - scaled down while the removed pods run - replicas patched, PVCs kept, requeued - pass", kv: testKV(1),
			sts:  func(t *testing.T, kv *KVStore) *appsv1.StatefulSet { return testSTS(t, kv, 3, 3, 3) },
			pods: []int{0, 1, 2}, pvcs: []int{0, 1, 2}, replicas: 1, ready: metav1.ConditionFalse, claims: []int{0, 1, 2}, requeue: true},
		{name: "reconcile - scaled down, one removed pod gone - its PVC deleted, the other kept - pass", kv: testKV(1),
			sts:  func(t *testing.T, kv *KVStore) *appsv1.StatefulSet { return testSTS(t, kv, 1, 2, 2) },
			pods: []int{0, 1}, pvcs: []int{0, 1, 2}, replicas: 1, ready: metav1.ConditionFalse, claims: []int{0, 1}, requeue: true},
		{name: "reconcile - scaled down, removed pods gone - their PVCs deleted, Ready - pass", kv: testKV(1),
			sts:  func(t *testing.T, kv *KVStore) *appsv1.StatefulSet { return testSTS(t, kv, 1, 1, 1) },
			pods: []int{0}, pvcs: []int{0, 1, 2}, replicas: 1, ready: metav1.ConditionTrue, claims: []int{0}},
		{name: "reconcile - planted, scaled down on a fresh status - PVCs kept, requeued - pass", kv: testKV(1), planted: true,
			sts:  func(t *testing.T, kv *KVStore) *appsv1.StatefulSet { return testSTS(t, kv, 3, 3, 3) },
			pods: []int{0, 1, 2}, pvcs: []int{0, 1, 2}, replicas: 1, ready: metav1.ConditionFalse, claims: []int{0, 1, 2}, requeue: true},
		{name: "reconcile - planted, scaled down on a stale status (1 replica) while pods run - PVCs of running pods deleted - fail", kv: testKV(1), planted: true,
			sts:  func(t *testing.T, kv *KVStore) *appsv1.StatefulSet { return testSTS(t, kv, 3, 1, 1) },
			pods: []int{0, 1, 2}, pvcs: []int{0, 1, 2}, replicas: 1, ready: metav1.ConditionTrue, claims: []int{0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := NewScheme()
			if err != nil {
				t.Fatal(err)
			}
			objs := []client.Object{tc.kv}
			if tc.sts != nil {
				objs = append(objs, tc.sts(t, tc.kv))
			}
			for _, n := range tc.pods {
				objs = append(objs, testPod(n))
			}
			for _, n := range tc.pvcs {
				objs = append(objs, testPVC(n))
			}
			c := fake.NewClientBuilder().WithScheme(s).WithObjects(objs...).WithStatusSubresource(&KVStore{}, &appsv1.StatefulSet{}).Build()
			var opts []Option
			if tc.planted {
				opts = append(opts, WithStatusCleanup())
			}
			ctx := context.Background()
			res, err := New(c, c, opts...).Reconcile(ctx, ctrl.Request{NamespacedName: types.NamespacedName{Namespace: testNS, Name: testName}})
			if err != nil {
				t.Fatalf("reconcile: got error %v, want none", err)
			}
			if got := res.RequeueAfter > 0; got != tc.requeue {
				t.Errorf("requeued: got %v (%v), want %v", got, res.RequeueAfter, tc.requeue)
			}
			var sts appsv1.StatefulSet
			if err := c.Get(ctx, client.ObjectKeyFromObject(tc.kv), &sts); err != nil {
				t.Fatalf("statefulset: got error %v, want one", err)
			}
			if got := replicasOf(&sts); got != tc.replicas {
				t.Errorf("statefulset replicas: got %d, want %d", got, tc.replicas)
			}
			if tc.wantOwned {
				checkOwned(t, ctx, c, tc.kv, &sts)
			}
			var kv KVStore
			if err := c.Get(ctx, client.ObjectKeyFromObject(tc.kv), &kv); err != nil {
				t.Fatal(err)
			}
			if got := meta.FindStatusCondition(kv.Status.Conditions, ConditionReady); got == nil || got.Status != tc.ready {
				t.Errorf("condition Ready: got %v, want status %s", got, tc.ready)
			}
			var pvcs corev1.PersistentVolumeClaimList
			if err := c.List(ctx, &pvcs); err != nil {
				t.Fatal(err)
			}
			var left []int
			for _, p := range pvcs.Items {
				if n, ok := claimOrdinal(tc.kv, p.Name); ok {
					left = append(left, n)
				}
			}
			slices.Sort(left)
			if !slices.Equal(left, tc.claims) {
				t.Errorf("PVCs left: got ordinals %v, want %v", left, tc.claims)
			}
		})
	}
}

// checkOwned checks the made StatefulSet (one volumeClaimTemplate) and
// the headless Service, each controlled by kv.
func checkOwned(t *testing.T, ctx context.Context, c client.Client, kv *KVStore, sts *appsv1.StatefulSet) {
	t.Helper()
	if !metav1.IsControlledBy(sts, kv) {
		t.Errorf("statefulset controller: got %v, want kvstore %s", sts.OwnerReferences, kv.UID)
	}
	if got := len(sts.Spec.VolumeClaimTemplates); got != 1 {
		t.Errorf("volumeClaimTemplates: got %d, want 1", got)
	}
	var svc corev1.Service
	if err := c.Get(ctx, client.ObjectKeyFromObject(kv), &svc); err != nil {
		t.Fatalf("service: got error %v, want one", err)
	}
	if svc.Spec.ClusterIP != corev1.ClusterIPNone || !metav1.IsControlledBy(&svc, kv) {
		t.Errorf("service: got clusterIP %q owners %v, want headless, controlled by the kvstore", svc.Spec.ClusterIP, svc.OwnerReferences)
	}
}
