package actors

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/synth"
)

// replay is a replay of a history holding only namespace "default".
// The node actors run against it as themselves, and a client plays
// the target.
type replay struct {
	cs     kubernetes.Interface
	cancel context.CancelFunc
	wg     sync.WaitGroup
	errs   []error
	mu     sync.Mutex
}

// startReplay starts actors against a fresh replay; call stop before
// the bubble ends. It must run inside a synctest bubble.
func startReplay(t *testing.T, actors []actor.Actor) *replay {
	t.Helper()
	b := synth.NewBuilder()
	b.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "default"}})
	b.Snapshot()
	h, err := b.History()
	if err != nil {
		t.Fatalf("history: got %v, want none", err)
	}
	var opts []replayer.Option
	if actor.Kubelets(actors) {
		opts = append(opts, replayer.WithGracefulDeletion())
	}
	srv := replayer.New(h, opts...)
	ctx, cancel := context.WithCancel(t.Context())
	c := &replay{cancel: cancel}
	c.cs = kubernetes.NewForConfigOrDie(&rest.Config{Host: "http://replay", Transport: srv.Transport()})
	for _, a := range actors {
		cfg := &rest.Config{Host: "http://replay", Transport: srv.TransportAs(a.Name), UserAgent: actor.UserAgent(a.Name)}
		c.wg.Add(1)
		go func() {
			defer c.wg.Done()
			if err := a.Run(ctx, actor.Env{Config: cfg}); err != nil {
				c.mu.Lock()
				c.errs = append(c.errs, fmt.Errorf("%s: %w", a.Name, err))
				c.mu.Unlock()
			}
		}()
	}
	return c
}

// stop ends the actors and fails t when one of them returned an error.
func (c *replay) stop(t *testing.T) {
	t.Helper()
	c.cancel()
	c.wg.Wait()
	for _, err := range c.errs {
		t.Errorf("actor Run: got %v, want nil", err)
	}
}

// eventually polls check every 100ms of virtual time for up to d, and
// fails t with its last "got" when it never holds.
func eventually(t *testing.T, d time.Duration, what string, check func() (got string, ok bool)) {
	t.Helper()
	var got string
	for end := time.Now().Add(d); ; {
		var ok bool
		if got, ok = check(); ok {
			return
		}
		if time.Now().After(end) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("%s after %v: got %s", what, d, got)
}

// testPod is a one-container pod in "default".
func testPod(name, node string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PodSpec{
			NodeName: node, RestartPolicy: corev1.RestartPolicyAlways,
			Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}},
		},
	}
}

// podState sums up what the tests check of a pod.
func podState(p *corev1.Pod) string {
	conds := map[corev1.PodConditionType]corev1.ConditionStatus{}
	for _, c := range p.Status.Conditions {
		conds[c.Type] = c.Status
	}
	running := 0
	for _, s := range p.Status.ContainerStatuses {
		if s.Ready && s.State.Running != nil {
			running++
		}
	}
	return fmt.Sprintf("node=%q phase=%s ready=%s scheduled=%s initialized=%s containersReady=%s running=%d/%d podIP=%q",
		p.Spec.NodeName, p.Status.Phase, conds[corev1.PodReady], conds[corev1.PodScheduled], conds[corev1.PodInitialized],
		conds[corev1.ContainersReady], running, len(p.Spec.Containers), p.Status.PodIP)
}

// isRunningReady reports whether p is Running and Ready as the kubelet
// stand-in leaves it.
func isRunningReady(p *corev1.Pod) bool {
	want := fmt.Sprintf("node=%q phase=Running ready=True scheduled=True initialized=True containersReady=True running=%d/%d podIP=%q",
		p.Spec.NodeName, len(p.Spec.Containers), len(p.Spec.Containers), podIP(p.Namespace, p.Name))
	return p.Spec.NodeName != "" && podState(p) == want
}

// getPod returns the pod's state, or "absent".
func (c *replay) getPod(ctx context.Context, name string) (*corev1.Pod, string) {
	p, err := c.cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, "absent"
	}
	if err != nil {
		return nil, err.Error()
	}
	return p, podState(p)
}

// testClaim is a claim of 1Gi in "default", of class class (nil: none).
func testClaim(name string, class *string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			StorageClassName: class,
			Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
				corev1.ResourceStorage: resource.MustParse("1Gi"),
			}},
		},
	}
}

// standard is the name of kind's default storage class.
var standard = ptr.To("standard")
