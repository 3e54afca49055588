package actors

import (
	"fmt"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/synth"
)

func TestKubeletNodes(t *testing.T) {
	tests := []struct {
		name string
		cfg  KubeletConfig
		want []string
	}{
		{name: "kubelet - default nodes - pass", want: []string{"kwok-node-0", "kwok-node-1", "kwok-node-2"}},
		{name: "kubelet - one node - pass", cfg: KubeletConfig{Nodes: 1}, want: []string{"kwok-node-0"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := startReplay(t, []actor.Actor{Kubelet(tt.cfg)})
				defer c.stop(t)
				eventually(t, 5*time.Second, "Ready nodes", func() (string, bool) {
					nodes, err := c.cs.CoreV1().Nodes().List(t.Context(), metav1.ListOptions{})
					if err != nil {
						return err.Error(), false
					}
					var ready []string
					for _, n := range nodes.Items {
						if isNodeReady(&n) && n.Status.Allocatable.Pods().Value() > 0 {
							ready = append(ready, n.Name)
						}
					}
					return fmt.Sprint(ready), fmt.Sprint(ready) == fmt.Sprint(tt.want)
				})
			})
		})
	}
}

func TestKubeletPods(t *testing.T) {
	tests := []struct {
		name     string
		node     string
		jobOwned bool
		exitCode string
		want     func(p *corev1.Pod) bool
		wantText string
	}{
		{name: "kubelet - pod bound by hand - pass", node: "kwok-node-1", want: isRunningReady, wantText: "Running, Ready, every container running"},
		{name: "kubelet - job pod - pass", node: "kwok-node-0", jobOwned: true, want: exited(corev1.PodSucceeded, 0), wantText: "Succeeded, exit code 0"},
		{name: "kubelet - job pod with exit code 1 - pass", node: "kwok-node-0", jobOwned: true, exitCode: "1",
			want: exited(corev1.PodFailed, 1), wantText: "Failed, exit code 1"},
		{name: "kubelet - pod on no node - pass", want: func(p *corev1.Pod) bool {
			// kube-apiserver stamps phase Pending on create; the replay leaves it empty.
			return (p.Status.Phase == corev1.PodPending || p.Status.Phase == "") && p.Status.PodIP == "" && len(p.Status.ContainerStatuses) == 0
		}, wantText: "Pending, untouched"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := startReplay(t, []actor.Actor{Kubelet(KubeletConfig{})})
				defer c.stop(t)
				pod := testPod("p", tt.node)
				if tt.jobOwned {
					pod.Spec.RestartPolicy = corev1.RestartPolicyNever
					job, err := c.cs.BatchV1().Jobs("default").Create(t.Context(), &batchv1.Job{
						ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "j"},
						Spec:       batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: pod.Spec}},
					}, metav1.CreateOptions{})
					if err != nil {
						t.Fatalf("create job: got %v, want nil", err)
					}
					pod.OwnerReferences = []metav1.OwnerReference{{
						APIVersion: "batch/v1", Kind: "Job", Name: job.Name, UID: job.UID, Controller: ptr.To(true),
					}}
				}
				if tt.exitCode != "" {
					pod.Annotations = map[string]string{ExitCodeAnnotation: tt.exitCode}
				}
				if _, err := c.cs.CoreV1().Pods("default").Create(t.Context(), pod, metav1.CreateOptions{}); err != nil {
					t.Fatalf("create pod: got %v, want nil", err)
				}
				time.Sleep(5 * time.Second)
				synctest.Wait()
				p, got := c.getPod(t.Context(), "p")
				if p == nil || !tt.want(p) {
					t.Errorf("pod after 5s: got %s, want %s", got, tt.wantText)
				}
			})
		})
	}
}

// exited returns a check that a pod ended in phase with every container
// terminated with code.
func exited(phase corev1.PodPhase, code int32) func(*corev1.Pod) bool {
	return func(p *corev1.Pod) bool {
		if p.Status.Phase != phase || len(p.Status.ContainerStatuses) != len(p.Spec.Containers) {
			return false
		}
		for _, s := range p.Status.ContainerStatuses {
			if s.State.Terminated == nil || s.State.Terminated.ExitCode != code || s.Ready {
				return false
			}
		}
		return true
	}
}

func TestKubeletGracefulDelete(t *testing.T) {
	tests := []struct {
		name        string
		grace       *int64
		at          time.Duration
		wantPresent bool
	}{
		{name: "kubelet - delete, within grace period - pass", grace: ptr.To[int64](30), at: 29 * time.Second, wantPresent: true},
		{name: "kubelet - delete, after grace period - pass", grace: ptr.To[int64](30), at: 31 * time.Second},
		{name: "kubelet - delete, pod's default grace period - pass", at: 31 * time.Second},
		{name: "kubelet - delete with grace 0 - pass", grace: ptr.To[int64](0), at: time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				c := startReplay(t, []actor.Actor{Kubelet(KubeletConfig{})})
				defer c.stop(t)
				if _, err := c.cs.CoreV1().Pods("default").Create(t.Context(), testPod("p", "kwok-node-0"), metav1.CreateOptions{}); err != nil {
					t.Fatalf("create pod: got %v, want nil", err)
				}
				eventually(t, 5*time.Second, "pod Running", func() (string, bool) {
					p, got := c.getPod(t.Context(), "p")
					return got, p != nil && isRunningReady(p)
				})
				err := c.cs.CoreV1().Pods("default").Delete(t.Context(), "p", metav1.DeleteOptions{GracePeriodSeconds: tt.grace})
				if err != nil {
					t.Fatalf("delete pod: got %v, want nil", err)
				}
				time.Sleep(tt.at)
				synctest.Wait()
				p, got := c.getPod(t.Context(), "p")
				if (p != nil) != tt.wantPresent {
					t.Errorf("pod %v after delete: got %s, want present %v", tt.at, got, tt.wantPresent)
				}
				if p != nil && p.DeletionTimestamp == nil {
					t.Errorf("pod %v after delete: got no deletionTimestamp, want one", tt.at)
				}
			})
		})
	}
}

func TestKubeletHeartbeat(t *testing.T) {
	tests := []struct {
		name      string
		heartbeat time.Duration
		want      string
	}{
		{name: "kubelet - heartbeat every 10s - pass", heartbeat: 10 * time.Second,
			want: "kwok-node-0 renewed 20s, kwok-node-1 renewed 20s, kwok-node-2 renewed 20s"},
		{name: "kubelet - no heartbeat - pass", want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				c := startReplay(t, []actor.Actor{Kubelet(KubeletConfig{Heartbeat: tt.heartbeat})})
				defer c.stop(t)
				time.Sleep(25 * time.Second)
				synctest.Wait()
				leases, err := c.cs.CoordinationV1().Leases(corev1.NamespaceNodeLease).List(t.Context(), metav1.ListOptions{})
				if err != nil {
					t.Fatalf("list leases: got %v, want nil", err)
				}
				var got []string
				for _, l := range leases.Items {
					got = append(got, fmt.Sprintf("%s renewed %v", l.Name, l.Spec.RenewTime.Sub(start).Truncate(time.Second)))
				}
				if s := strings.Join(got, ", "); s != tt.want {
					t.Errorf("leases after 25s: got %q, want %q", s, tt.want)
				}
			})
		})
	}
}

func TestKubeletCannotStart(t *testing.T) {
	t.Run("kubelet - read-only replay - fail", func(t *testing.T) { synctest.Test(t, kubeletOnReadOnly) })
}

// kubeletOnReadOnly runs the kubelet against a replay that takes no
// writes: it cannot make its nodes, and says so after its retries.
func kubeletOnReadOnly(t *testing.T) {
	{
		b := synth.NewBuilder()
		b.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
		h, err := b.History()
		if err != nil {
			t.Fatalf("history: got %v, want nil", err)
		}
		srv := replayer.New(h, replayer.WithReadOnly())
		start := time.Now()
		err = Kubelet(KubeletConfig{}).Run(t.Context(), actor.Env{Config: &rest.Config{Host: "http://replay", Transport: srv.TransportAs("kubelet")}})
		if err == nil || !strings.Contains(err.Error(), "kwok-node-0") {
			t.Errorf("Run: got %v, want an error naming kwok-node-0", err)
		}
		if took := time.Since(start); took < 30*time.Second {
			t.Errorf("Run gave up after %v, want after its retries (>30s)", took)
		}
	}
}
