package actors

import (
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/actor"
)

func TestProvisioner(t *testing.T) {
	tests := []struct {
		name      string
		class     *string
		wantClass string
	}{
		{name: "volume-provisioner - claim of class standard - pass", class: standard, wantClass: "standard"},
		{name: "volume-provisioner - claim of no class - pass"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := startReplay(t, []actor.Actor{Provisioner()})
				defer c.stop(t)
				claim, err := c.cs.CoreV1().PersistentVolumeClaims("default").Create(t.Context(), testClaim("data", tt.class), metav1.CreateOptions{})
				if err != nil {
					t.Fatalf("create claim: got %v, want nil", err)
				}
				pvName := "pvc-" + string(claim.UID)
				wantClaim := fmt.Sprintf("phase=Bound volume=%s capacity=1Gi modes=[ReadWriteOnce] bindCompleted=yes", pvName)
				eventually(t, 5*time.Second, "claim", func() (string, bool) {
					got, err := c.cs.CoreV1().PersistentVolumeClaims("default").Get(t.Context(), "data", metav1.GetOptions{})
					if err != nil {
						return err.Error(), false
					}
					s := fmt.Sprintf("phase=%s volume=%s capacity=%s modes=%v bindCompleted=%s", got.Status.Phase, got.Spec.VolumeName,
						got.Status.Capacity.Storage(), got.Status.AccessModes, got.Annotations[annBindCompleted])
					return s + ", want " + wantClaim, s == wantClaim
				})
				pv, err := c.cs.CoreV1().PersistentVolumes().Get(t.Context(), pvName, metav1.GetOptions{})
				if err != nil {
					t.Fatalf("get volume: got %v, want nil", err)
				}
				got := fmt.Sprintf("phase=%s claim=%s/%s uid=%v class=%q capacity=%s hostPath=%v", pv.Status.Phase, pv.Spec.ClaimRef.Namespace,
					pv.Spec.ClaimRef.Name, pv.Spec.ClaimRef.UID == claim.UID, pv.Spec.StorageClassName, pv.Spec.Capacity.Storage(), pv.Spec.HostPath != nil)
				want := fmt.Sprintf("phase=Bound claim=default/data uid=true class=%q capacity=1Gi hostPath=true", tt.wantClass)
				if got != want {
					t.Errorf("volume: got %s, want %s", got, want)
				}

				if err := c.cs.CoreV1().PersistentVolumeClaims("default").Delete(t.Context(), "data", metav1.DeleteOptions{}); err != nil {
					t.Fatalf("delete claim: got %v, want nil", err)
				}
				eventually(t, 5*time.Second, "volume of the deleted claim", func() (string, bool) {
					_, err := c.cs.CoreV1().PersistentVolumes().Get(t.Context(), pvName, metav1.GetOptions{})
					return fmt.Sprintf("%v, want NotFound", err), apierrors.IsNotFound(err)
				})
			})
		})
	}
}

// boundClaim is a claim the provisioner has bound, for tests of others.
func boundClaim(name string) *corev1.PersistentVolumeClaim {
	c := testClaim(name, standard)
	c.Spec.VolumeName = "pv-" + name
	c.Status.Phase = corev1.ClaimBound
	return c
}
