package actors

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestDefaults defaults the kinds the actors' controllers read as
// kube-apiserver does.
func TestDefaults(t *testing.T) {
	sts := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "s"}}
	Defaults().Default(sts)
	if got := sts.Spec.UpdateStrategy.Type; got != appsv1.RollingUpdateStatefulSetStrategyType {
		t.Errorf("statefulset updateStrategy: got %q, want RollingUpdate", got)
	}
	if got := sts.Spec.PodManagementPolicy; got != appsv1.OrderedReadyPodManagement {
		t.Errorf("statefulset podManagementPolicy: got %q, want OrderedReady", got)
	}
	dep := &appsv1.Deployment{}
	Defaults().Default(dep)
	if dep.Spec.Strategy.RollingUpdate == nil || dep.Spec.RevisionHistoryLimit == nil || *dep.Spec.RevisionHistoryLimit != 10 {
		t.Errorf("deployment: got strategy %+v, revisionHistoryLimit %v, want rolling update and 10", dep.Spec.Strategy, dep.Spec.RevisionHistoryLimit)
	}
	pod := &corev1.Pod{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
	Defaults().Default(pod)
	if got := pod.Spec.RestartPolicy; got != corev1.RestartPolicyAlways {
		t.Errorf("pod restartPolicy: got %q, want Always", got)
	}
	if got := pod.Spec.TerminationGracePeriodSeconds; got == nil || *got != 30 {
		t.Errorf("pod terminationGracePeriodSeconds: got %v, want 30", got)
	}
}
