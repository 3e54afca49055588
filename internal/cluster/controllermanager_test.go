package cluster

import (
	"context"
	"errors"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

func TestControllerManager(t *testing.T) {
	c := StartT(t)
	start := time.Now()
	if err := c.StartControllerManager(context.Background()); err != nil {
		Skip(t, err)
		t.Fatalf("got error %v, want kube-controller-manager running", err)
	}
	t.Logf("kube-controller-manager start time: %v", time.Since(start).Round(time.Millisecond))
	if err := c.StartControllerManager(context.Background()); !errors.Is(err, ErrStart) {
		t.Errorf("second start: got error %v, want %v", err, ErrStart)
	}
	cs, err := kubernetes.NewForConfig(c.RestConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	rs := &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "rs"},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: new(int32(2)),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "rs"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "rs"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "registry.invalid/c"}}},
			},
		},
	}
	if _, err := cs.AppsV1().ReplicaSets("default").Create(ctx, rs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// the replicaset controller makes its pods (no node runs them)
	var pods int
	for ctx.Err() == nil {
		list, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "app=rs"})
		if err != nil {
			t.Fatal(err)
		}
		if pods = len(list.Items); pods == 2 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if pods != 2 {
		t.Errorf("controller manager - replicaset's pods - pass: got %d pods, want 2", pods)
	}
}
