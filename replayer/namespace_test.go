package replayer

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestNamespaceLife drives a namespace through client-go's typed client
// on a replay. It is created Active, and a DELETE marks it Terminating. A
// create in it is Forbidden (NamespaceLifecycle). The finalize
// subresource emptying spec.finalizers deletes it.
func TestNamespaceLife(t *testing.T) {
	s := New(listHistory(t))
	cs := writeClient(t, s, false)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	nss := cs.CoreV1().Namespaces()
	ns, err := nss.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "z"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("namespace life - create - pass: got error %v, want none", err)
	}
	if ns.Status.Phase != corev1.NamespaceActive || len(ns.Spec.Finalizers) != 1 || ns.Spec.Finalizers[0] != corev1.FinalizerKubernetes {
		t.Errorf("namespace life - create - pass: got phase %q finalizers %v, want Active [kubernetes]", ns.Status.Phase, ns.Spec.Finalizers)
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
	if _, err := cs.CoreV1().ConfigMaps("z").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Errorf("namespace life - create in the active namespace - pass: got error %v, want none", err)
	}
	if err := nss.Delete(ctx, "z", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("namespace life - delete - pass: got error %v, want none", err)
	}
	ns, err = nss.Get(ctx, "z", metav1.GetOptions{})
	if err != nil || ns.Status.Phase != corev1.NamespaceTerminating || ns.DeletionTimestamp == nil {
		t.Fatalf("namespace life - delete marks it - pass: got %v, error %v, want Terminating with a deletionTimestamp", ns.Status, err)
	}
	cm.Name = "d"
	if _, err := cs.CoreV1().ConfigMaps("z").Create(ctx, cm, metav1.CreateOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("namespace life - create in the terminating namespace - fail: got error %v, want Forbidden", err)
	}
	ns.Spec.Finalizers = nil
	if _, err := nss.Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("namespace life - finalize - pass: got error %v, want none", err)
	}
	if _, err := nss.Get(ctx, "z", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("namespace life - finalized is deleted - pass: got error %v, want NotFound", err)
	}
}
