package replayer

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// TestLeaseWrites drives client-go's typed Lease client as a
// resourcelock.LeaseLock does (Get, Create when not found, Update at the
// resourceVersion read). The replay records no leases. It serves
// coordination.k8s.io/v1 leases from empty. It takes the create and the
// update at the current resourceVersion. As kube-apiserver does, it
// answers one at a stale resourceVersion 409 Conflict.
func TestLeaseWrites(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		stale bool
	}{
		{name: "lease writes - get, create, update at the read rv - pass"},
		{name: "lease writes - update at a stale rv - fail", stale: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(configMapsHistory(t))
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			leases := writeClient(t, s, false).CoordinationV1().Leases("kube-system")
			if _, err := leases.Get(ctx, "lock", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Fatalf("Get before the create: got %v, want NotFound", err)
			}
			created, err := leases.Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "lock"},
				Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("a"), LeaseDurationSeconds: ptr.To[int32](15)}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("Create: got error %v, want none", err)
			}
			got, err := leases.Get(ctx, "lock", metav1.GetOptions{})
			if err != nil || got.ResourceVersion != created.ResourceVersion || ptr.Deref(got.Spec.HolderIdentity, "") != "a" {
				t.Fatalf("Get: got %+v, %v, want holder a at rv %s", got, err, created.ResourceVersion)
			}
			renewed := got.DeepCopy()
			renewed.Spec.RenewTime = &metav1.MicroTime{Time: time.Date(2000, 1, 1, 0, 0, 2, 0, time.UTC)}
			updated, err := leases.Update(ctx, renewed, metav1.UpdateOptions{})
			if err != nil {
				t.Fatalf("Update at rv %s: got error %v, want none", renewed.ResourceVersion, err)
			}
			if !newer(updated.ResourceVersion, created.ResourceVersion) {
				t.Errorf("updated: got rv %s, want one after the create's %s", updated.ResourceVersion, created.ResourceVersion)
			}
			if !tt.stale {
				return
			}
			stale := got.DeepCopy() // at the create's rv, which the update moved on from
			stale.Spec.HolderIdentity = ptr.To("b")
			if _, err := leases.Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
				t.Errorf("Update at the stale rv %s: got %v, want Conflict", stale.ResourceVersion, err)
			}
			if now, err := leases.Get(ctx, "lock", metav1.GetOptions{}); err != nil || ptr.Deref(now.Spec.HolderIdentity, "") != "a" || now.ResourceVersion != updated.ResourceVersion {
				t.Errorf("Get after the conflict: got %+v, %v, want holder a at rv %s", now, err, updated.ResourceVersion)
			}
		})
	}
}
