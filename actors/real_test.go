package actors

import (
	"context"
	"sync"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/internal/cluster"
)

// TestNodeActorsRealAPIServer runs the node actors unchanged against a
// real kube-apiserver 1.37.2 (no controller manager), in real time. The
// requests they make are ones a real apiserver takes.
func TestNodeActorsRealAPIServer(t *testing.T) {
	cluster.SkipShort(t)
	cl := cluster.StartT(t)
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	for _, a := range NodeActors() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := a.Run(ctx, actor.Env{Config: cl.RestConfig()}); err != nil {
				t.Errorf("%s Run: got %v, want nil", a.Name, err)
			}
		}()
	}
	defer wg.Wait()
	defer cancel()
	cs := kubernetes.NewForConfigOrDie(cl.RestConfig())
	if _, err := cs.CoreV1().PersistentVolumeClaims("default").Create(ctx, testClaim("data", standard), metav1.CreateOptions{}); err != nil {
		t.Fatalf("create claim: got %v, want nil", err)
	}
	withClaim := testPod("with-claim", "")
	withClaim.Spec.Volumes = []corev1.Volume{{Name: "data", VolumeSource: corev1.VolumeSource{
		PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "data"},
	}}}
	job, err := cs.BatchV1().Jobs("default").Create(ctx, &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "j"},
		Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
			RestartPolicy: corev1.RestartPolicyNever, Containers: testPod("x", "").Spec.Containers,
		}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create job: got %v, want nil", err)
	}
	failing := testPod("failing", "")
	failing.Spec.RestartPolicy = corev1.RestartPolicyNever
	failing.Annotations = map[string]string{ExitCodeAnnotation: "1"}
	failing.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: ptr.To(true)}}
	for _, p := range []*corev1.Pod{testPod("plain", ""), withClaim, failing} {
		if _, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create pod %s: got %v, want nil", p.Name, err)
		}
	}
	for _, name := range []string{"plain", "with-claim"} {
		t.Run("node actors - real kube-apiserver, pod "+name+" - scheduled, Running, Ready - pass", func(t *testing.T) {
			var got string
			err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
				p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
				if err != nil {
					got = err.Error()
					return false, nil
				}
				got = podState(p)
				return isRunningReady(p), nil
			})
			if err != nil {
				nodes, _ := cs.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
				for _, n := range nodes.Items {
					t.Logf("node %s: ready %v, taints %v", n.Name, isNodeReady(&n), n.Spec.Taints)
				}
				t.Errorf("pod %s: got %s, want Running and Ready on a node", name, got)
			}
		})
	}
	t.Run("node actors - real kube-apiserver, Job pod with exit code 1 - Failed - pass", func(t *testing.T) {
		var got string
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			p, err := cs.CoreV1().Pods("default").Get(ctx, "failing", metav1.GetOptions{})
			if err != nil {
				return false, nil
			}
			got = podState(p)
			return exited(corev1.PodFailed, 1)(p), nil
		})
		if err != nil {
			t.Errorf("pod failing: got %s, want Failed with exit code 1", got)
		}
	})
	t.Run("node actors - real kube-apiserver, claim - Bound - pass", func(t *testing.T) {
		c, err := cs.CoreV1().PersistentVolumeClaims("default").Get(ctx, "data", metav1.GetOptions{})
		if err != nil || c.Status.Phase != corev1.ClaimBound || c.Spec.VolumeName != "pvc-"+string(c.UID) {
			t.Errorf("claim: got %v (err %v), want Bound to pvc-<uid>", c.Status.Phase, err)
		}
	})
	t.Run("node actors - real kube-apiserver, delete with grace 2s - gone after it - pass", func(t *testing.T) {
		start := time.Now()
		if err := cs.CoreV1().Pods("default").Delete(ctx, "plain", metav1.DeleteOptions{GracePeriodSeconds: ptr.To[int64](2)}); err != nil {
			t.Fatalf("delete: got %v, want nil", err)
		}
		err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().Pods("default").Get(ctx, "plain", metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		took := time.Since(start)
		if err != nil || took < time.Second {
			t.Errorf("pod gone after %v (err %v): want gone, after about its 2s grace period", took, err)
		}
		t.Logf("gone after %v", took)
	})
}
