package actors_test

import (
	"context"
	"fmt"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// metas lists the object metadata of resource in ns.
func metas(ctx context.Context, c kubernetes.Interface, resource string) ([]metav1.ObjectMeta, error) {
	var out []metav1.ObjectMeta
	switch resource {
	case "pods":
		l, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, o := range l.Items {
			out = append(out, o.ObjectMeta)
		}
	case "controllerrevisions":
		l, err := c.AppsV1().ControllerRevisions(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, o := range l.Items {
			out = append(out, o.ObjectMeta)
		}
	case "replicasets":
		l, err := c.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, o := range l.Items {
			out = append(out, o.ObjectMeta)
		}
	case "deployments":
		l, err := c.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, err
		}
		for _, o := range l.Items {
			out = append(out, o.ObjectMeta)
		}
	default:
		return nil, fmt.Errorf("no lister of %s", resource)
	}
	return out, nil
}

// owned returns the names of the objects of resource controlled by uid,
// sorted.
func owned(ctx context.Context, c kubernetes.Interface, resource string, uid any) []string {
	ms, err := metas(ctx, c, resource)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	var out []string
	for _, m := range ms {
		if ref := metav1.GetControllerOfNoCopy(&m); ref != nil && string(ref.UID) == fmt.Sprint(uid) {
			out = append(out, m.Name)
		}
	}
	slices.Sort(out)
	return out
}

// controlled checks that the objects of resource controlled by uid are
// the ones named want.
func controlled(ctx context.Context, c kubernetes.Interface, resource string, uid any, want []string) []string {
	if got := owned(ctx, c, resource, uid); !slices.Equal(got, want) {
		return []string{fmt.Sprintf("got %s %v controlled by %v, want %v", resource, got, uid, want)}
	}
	return nil
}

// controlledCount checks that n objects of resource are controlled by uid.
func controlledCount(ctx context.Context, c kubernetes.Interface, resource string, uid any, n int) []string {
	if got := owned(ctx, c, resource, uid); len(got) != n {
		return []string{fmt.Sprintf("got %s %v controlled by %v, want %d", resource, got, uid, n)}
	}
	return nil
}

// countOf checks that ns holds n objects of resource.
func countOf(ctx context.Context, c kubernetes.Interface, resource string, n int) []string {
	ms, err := metas(ctx, c, resource)
	if err != nil && !apierrors.IsNotFound(err) {
		return []string{fmt.Sprintf("got %v listing %s, want them", err, resource)}
	}
	if len(ms) != n {
		var names []string
		for _, m := range ms {
			names = append(names, m.Name)
		}
		return []string{fmt.Sprintf("got %s %v, want %d", resource, names, n)}
	}
	return nil
}

// podTemplate is a pod template labelled app=name.
func podTemplate(name string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": name}},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "main", Image: "registry.k8s.io/pause:3.10"}}},
	}
}

// selector selects app=name.
func selector(name string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}}
}

// statefulSet is a StatefulSet of n replicas started in parallel.
// (The default OrderedReady waits for each pod to be ready, and no
// kubelet makes one ready here.) It and the objects below are sent as
// a user writes them: the replay defaults them (WithDefaulter).
func statefulSet(name string, n int32) *appsv1.StatefulSet {
	o := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: appsv1.StatefulSetSpec{
		Replicas: &n, Selector: selector(name), Template: podTemplate(name), ServiceName: name,
		PodManagementPolicy: appsv1.ParallelPodManagement,
	}}
	return o
}

// deploymentOf is a Deployment of n replicas.
func deploymentOf(name string, n int32) *appsv1.Deployment {
	o := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: appsv1.DeploymentSpec{
		Replicas: &n, Selector: selector(name), Template: podTemplate(name),
	}}
	return o
}

// replicaSetOf is a ReplicaSet of n replicas.
func replicaSetOf(name string, n int32) *appsv1.ReplicaSet {
	o := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: appsv1.ReplicaSetSpec{
		Replicas: &n, Selector: selector(name), Template: podTemplate(name),
	}}
	return o
}

// jobOf is a Job of n completions, n at once.
func jobOf(name string, n int32) *batchv1.Job {
	tmpl := podTemplate(name)
	tmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
	manual := true // kube-apiserver generates the selector otherwise; the replay does not
	o := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: batchv1.JobSpec{
		Completions: &n, Parallelism: &n, Template: tmpl, Selector: selector(name), ManualSelector: &manual,
	}}
	return o
}
