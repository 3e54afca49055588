package differential

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
)

// statefulSetScript: a StatefulSet "web" with a volume claim template,
// scaled 0→3, its template changed (a rolling update of 3 pods), scaled
// 3→1.
func statefulSetScript(ctx context.Context, cs kubernetes.Interface, p Params) error {
	p = p.defaults()
	ns := "diff-statefulset"
	if err := createNamespace(ctx, cs, ns); err != nil {
		return err
	}
	svc := &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: corev1.ServiceSpec{
			ClusterIP: corev1.ClusterIPNone,
			Selector:  map[string]string{"app": "web"},
			Ports:     []corev1.ServicePort{{Name: "http", Port: 80}},
		},
	}
	if _, err := cs.CoreV1().Services(ns).Create(ctx, svc, metav1.CreateOptions{}); err != nil {
		return step("create service", err)
	}
	claim := corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: "data"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Mi")}},
		},
	}
	if p.StorageClassName != "" {
		claim.Spec.StorageClassName = ptr(p.StorageClassName)
	}
	tmpl := podTemplate("web", "registry.invalid/web:v1")
	tmpl.Spec.Containers[0].VolumeMounts = []corev1.VolumeMount{{Name: "data", MountPath: "/data"}}
	sts := &appsv1.StatefulSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.StatefulSetSpec{
			Replicas:             ptr(int32(0)),
			ServiceName:          "web",
			Selector:             &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template:             tmpl,
			VolumeClaimTemplates: []corev1.PersistentVolumeClaim{claim},
		},
	}
	sets := cs.AppsV1().StatefulSets(ns)
	if _, err := sets.Create(ctx, sts, metav1.CreateOptions{}); err != nil {
		return step("create statefulset", err)
	}
	// settled: the controller saw the spec, every replica is ready and
	// updated to the newest revision.
	settled := func(want int32) func(ctx context.Context) (bool, error) {
		return func(ctx context.Context) (bool, error) {
			s, err := sets.Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			st := s.Status
			return st.ObservedGeneration == s.Generation && st.Replicas == want && st.ReadyReplicas == want &&
				st.UpdatedReplicas == want && st.CurrentRevision == st.UpdateRevision, nil
		}
	}
	if err := waitFor(ctx, p, "statefulset at 0 replicas", settled(0)); err != nil {
		return err
	}
	scale := func(n int32) error {
		patch := fmt.Sprintf(`{"spec":{"replicas":%d}}`, n)
		_, err := sets.Patch(ctx, "web", types.MergePatchType, []byte(patch), metav1.PatchOptions{})
		return step(fmt.Sprintf("scale statefulset to %d", n), err)
	}
	if err := scale(3); err != nil {
		return err
	}
	if err := waitFor(ctx, p, "statefulset at 3 ready replicas", settled(3)); err != nil {
		return err
	}
	patch := `{"spec":{"template":{"spec":{"containers":[{"name":"main","image":"registry.invalid/web:v2"}]}}}}`
	if _, err := sets.Patch(ctx, "web", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return step("change statefulset template", err)
	}
	if err := waitFor(ctx, p, "statefulset rolled to v2", settled(3)); err != nil {
		return err
	}
	if err := scale(1); err != nil {
		return err
	}
	if err := waitFor(ctx, p, "statefulset at 1 ready replica", settled(1)); err != nil {
		return err
	}
	return waitFor(ctx, p, "statefulset's pods 1 and 2 gone", podCount(cs, ns, "app=web", 1))
}

// deploymentScript: a Deployment "app" of 2 replicas rolled out, its image
// updated, rolled back as kubectl rollout undo does (the first
// ReplicaSet's template written back).
func deploymentScript(ctx context.Context, cs kubernetes.Interface, p Params) error {
	p = p.defaults()
	ns := "diff-deployment"
	if err := createNamespace(ctx, cs, ns); err != nil {
		return err
	}
	deps := cs.AppsV1().Deployments(ns)
	d := deployment("app", 2, "registry.invalid/app:v1")
	if _, err := deps.Create(ctx, d, metav1.CreateOptions{}); err != nil {
		return step("create deployment", err)
	}
	if err := waitFor(ctx, p, "deployment rolled out", deploymentComplete(cs, ns, "app")); err != nil {
		return err
	}
	patch := `{"spec":{"template":{"spec":{"containers":[{"name":"main","image":"registry.invalid/app:v2"}]}}}}`
	if _, err := deps.Patch(ctx, "app", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		return step("update deployment", err)
	}
	if err := waitFor(ctx, p, "deployment updated", deploymentComplete(cs, ns, "app")); err != nil {
		return err
	}
	// kubectl rollout undo: the template of the ReplicaSet of revision 1,
	// without its pod-template-hash label.
	rss, err := cs.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{LabelSelector: "app=app"})
	if err != nil {
		return step("list replicasets", err)
	}
	var first *appsv1.ReplicaSet
	for i := range rss.Items {
		if rss.Items[i].Annotations["deployment.kubernetes.io/revision"] == "1" {
			first = &rss.Items[i]
		}
	}
	if first == nil {
		return fmt.Errorf("%w: no replicaset of revision 1 among %d", ErrScript, len(rss.Items))
	}
	cur, err := deps.Get(ctx, "app", metav1.GetOptions{})
	if err != nil {
		return step("get deployment", err)
	}
	cur.Spec.Template = *first.Spec.Template.DeepCopy()
	delete(cur.Spec.Template.Labels, appsv1.DefaultDeploymentUniqueLabelKey)
	if _, err := deps.Update(ctx, cur, metav1.UpdateOptions{}); err != nil {
		return step("roll deployment back", err)
	}
	return waitFor(ctx, p, "deployment rolled back", deploymentComplete(cs, ns, "app"))
}

// deployment returns a Deployment name of replicas pods labelled app=name.
func deployment(name string, replicas int32, image string) *appsv1.Deployment {
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": name}},
			Template: podTemplate(name, image),
		},
	}
}

// deploymentComplete holds once the deployment's newest spec is observed
// and every replica is updated, available, and no old one is left.
func deploymentComplete(cs kubernetes.Interface, ns, name string) func(ctx context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		d, err := cs.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		want := *d.Spec.Replicas
		st := d.Status
		return st.ObservedGeneration == d.Generation && st.UpdatedReplicas == want && st.Replicas == want &&
			st.AvailableReplicas == want && st.UnavailableReplicas == 0, nil
	}
}

// jobGate holds the Job's pods back from the scheduler until the script
// has marked them: the first one to fail, the others as they are.
const jobGate = "lwreplay.dev/differential"

// jobScript: a Job "work" of 2 completions, one pod at a time. Its pods are
// created with a scheduling gate. The script marks the first one to fail
// (Params.FailAnnotation, which the kubelet stand-in reads), and lifts each
// pod's gate. So the Job completes after one failed pod and a retry.
func jobScript(ctx context.Context, cs kubernetes.Interface, p Params) error {
	p = p.defaults()
	ns := "diff-job"
	if err := createNamespace(ctx, cs, ns); err != nil {
		return err
	}
	tmpl := podTemplate("work", "registry.invalid/work:v1")
	tmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
	tmpl.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: jobGate}}
	job := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: "work"},
		Spec: batchv1.JobSpec{
			// a selector of the script's own: kube-apiserver's job strategy
			// would make one from the Job's uid, a replay makes none
			ManualSelector: ptr(true),
			Selector:       &metav1.LabelSelector{MatchLabels: map[string]string{"app": "work"}},
			Completions:    ptr(int32(2)),
			Parallelism:    ptr(int32(1)),
			BackoffLimit:   ptr(int32(3)),
			Template:       tmpl,
		},
	}
	jobs := cs.BatchV1().Jobs(ns)
	if _, err := jobs.Create(ctx, job, metav1.CreateOptions{}); err != nil {
		return step("create job", err)
	}
	pods := cs.CoreV1().Pods(ns)
	marked := 0
	return waitFor(ctx, p, "job complete", func(ctx context.Context) (bool, error) {
		list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: "app=work"})
		if err != nil {
			return false, err
		}
		for i := range list.Items {
			pod := &list.Items[i]
			if len(pod.Spec.SchedulingGates) == 0 || pod.DeletionTimestamp != nil {
				continue
			}
			pod.Spec.SchedulingGates = nil
			if marked == 0 && p.FailAnnotation[0] != "" {
				if pod.Annotations == nil {
					pod.Annotations = map[string]string{}
				}
				pod.Annotations[p.FailAnnotation[0]] = p.FailAnnotation[1]
			}
			if _, err := pods.Update(ctx, pod, metav1.UpdateOptions{}); err != nil {
				return false, err
			}
			marked++
		}
		j, err := jobs.Get(ctx, "work", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobComplete && c.Status == corev1.ConditionTrue {
				return true, nil
			}
		}
		return false, nil
	})
}
