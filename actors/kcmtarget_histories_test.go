package actors_test

import (
	"fmt"
	"maps"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/lwreplay/lwreplay/actors"
	"github.com/lwreplay/lwreplay/synth"
)

// userStep is how long, in virtual time, the synthetic user waits between
// two actions: long enough for the controllers and the kubelet stand-in
// to converge (pods Ready after about 2 s).
const userStep = 30 * time.Second

// user writes a synthetic history of a user's actions: objects sent
// defaulted, as kube-apiserver stores them, userStep apart.
type user struct {
	b   *synth.Builder
	ns  *corev1.Namespace
	uid int
}

// newUser starts a history holding namespace ns, cluster state before
// the user acts.
func newUser() *user {
	u := &user{b: synth.NewBuilder(), ns: &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}}
	u.b.Add(u.ns)
	u.b.Snapshot()
	return u
}

// create records obj's creation (generation 1), after a wait. A Job gets
// its selector as kube-apiserver's Job strategy gives it (PrepareForCreate).
func (u *user) create(obj runtime.Object) {
	u.uid++
	uid := types.UID(fmt.Sprintf("00000000-0000-4000-8000-%012d", u.uid))
	if j, ok := obj.(*batchv1.Job); ok {
		generateJobSelector(j, uid)
	}
	actors.Defaults().Default(obj)
	m := obj.(metav1.Object)
	m.SetGeneration(1)
	m.SetUID(uid)
	m.SetResourceVersion("")
	m.SetCreationTimestamp(metav1.Time{})
	u.b.Wait(userStep)
	u.b.Add(obj)
}

// generateJobSelector gives j the selector and template labels
// kube-apiserver's Job strategy gives a Job created without manualSelector
// (pkg/registry/batch/job generateSelector).
func generateJobSelector(j *batchv1.Job, uid types.UID) {
	labels := map[string]string{batchv1.ControllerUidLabel: string(uid), batchv1.JobNameLabel: j.Name,
		"controller-uid": string(uid), "job-name": j.Name}
	if j.Spec.Template.Labels == nil {
		j.Spec.Template.Labels = map[string]string{}
	}
	maps.Copy(j.Spec.Template.Labels, labels)
	j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{batchv1.ControllerUidLabel: string(uid)}}
}

// change records a change of obj's spec (a new generation), after a wait.
func (u *user) change(obj runtime.Object) {
	actors.Defaults().Default(obj)
	m := obj.(metav1.Object)
	m.SetGeneration(m.GetGeneration() + 1)
	u.b.Wait(userStep)
	u.b.Update(obj)
}

// remove records obj's deletion, after a wait.
func (u *user) remove(obj runtime.Object) {
	u.b.Wait(userStep)
	u.b.Delete(obj)
}

// save writes the history as a cassette in dir and returns its path. A
// last wait leaves the controllers time to converge on the end state.
func (u *user) save(t testing.TB, dir, name string) string {
	t.Helper()
	u.b.Wait(userStep)
	// Every resource's log ends here: the replayer lists a resource whose
	// events are all served at its last RV, the history's, whenever that
	// comes (see docs/controllers.md, "Stubbed"). So the namespace changes
	// last, and its log is paced to the end.
	u.ns.Annotations = map[string]string{"user": "done"}
	u.b.Update(u.ns)
	c, err := u.b.Cassette(synth.CassetteOptions{})
	if err != nil {
		t.Fatalf("history %s: got error %v, want none", name, err)
	}
	p := filepath.Join(dir, name+".yaml")
	if err := c.Save(p); err != nil {
		t.Fatalf("history %s: save: got error %v, want none", name, err)
	}
	return p
}

// lifecycle records the user's actions on a scalable workload: create at
// 1, scale up to 3, change the template, scale down to 1, delete, and
// recreate under the same name at 2. scale sets the replicas; bump
// changes the template.
func lifecycle[T runtime.Object](u *user, mk func() T, scale func(T, int32), bump func(T)) {
	o := mk()
	scale(o, 1)
	u.create(o)
	scale(o, 3)
	u.change(o)
	bump(o)
	u.change(o)
	scale(o, 1)
	u.change(o)
	u.remove(o)
	o = mk()
	scale(o, 2)
	u.create(o)
}

// bumpTemplate changes a pod template: a new annotation.
func bumpTemplate(t *corev1.PodTemplateSpec) {
	t.Annotations = map[string]string{"rev": "2"}
}

// kcmHistory writes the synthetic user history of target's kind into dir
// and returns its path.
func kcmHistory(t testing.TB, dir, target string) string {
	t.Helper()
	u := newUser()
	switch target {
	case "statefulset":
		lifecycle(u, func() *appsv1.StatefulSet {
			s := statefulSet("web", 1)
			s.Spec.PodManagementPolicy = appsv1.OrderedReadyPodManagement
			s.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"},
				Spec: corev1.PersistentVolumeClaimSpec{AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
					Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}}}}}
			return s
		}, func(s *appsv1.StatefulSet, n int32) { s.Spec.Replicas = &n },
			func(s *appsv1.StatefulSet) { bumpTemplate(&s.Spec.Template) })
	case "replicaset", "endpointslice":
		var svc *corev1.Service
		if target == "endpointslice" {
			svc = &corev1.Service{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"}, Spec: corev1.ServiceSpec{
				Selector: map[string]string{"app": "web"}, Ports: []corev1.ServicePort{{Name: "http", Port: 80}}}}
			u.create(svc)
		}
		lifecycle(u, func() *appsv1.ReplicaSet {
			return &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
				Spec: appsv1.ReplicaSetSpec{Selector: selector("web"), Template: podTemplate("web")}}
		}, func(s *appsv1.ReplicaSet, n int32) { s.Spec.Replicas = &n },
			func(s *appsv1.ReplicaSet) { bumpTemplate(&s.Spec.Template) })
		if svc != nil { // the Service's log spans the history: the run lasts as long
			svc.Annotations = map[string]string{"owner": "web"}
			u.change(svc)
		}
	case "deployment":
		lifecycle(u, func() *appsv1.Deployment {
			return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web"},
				Spec: appsv1.DeploymentSpec{Selector: selector("web"), Template: podTemplate("web")}}
		}, func(s *appsv1.Deployment, n int32) { s.Spec.Replicas = &n },
			func(s *appsv1.Deployment) { bumpTemplate(&s.Spec.Template) })
	case "job": // a Job's template is immutable: parallelism is its scale
		lifecycle(u, func() *batchv1.Job {
			tpl := podTemplate("batch")
			tpl.Spec.RestartPolicy = corev1.RestartPolicyNever
			return &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "batch"},
				Spec: batchv1.JobSpec{Completions: ptr.To[int32](4), Template: tpl}}
		}, func(j *batchv1.Job, n int32) { j.Spec.Parallelism = &n },
			func(j *batchv1.Job) { j.Spec.ActiveDeadlineSeconds = ptr.To[int64](3600) })
	case "daemonset": // no scale: the template changes twice
		lifecycle(u, func() *appsv1.DaemonSet {
			return &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "agent"},
				Spec: appsv1.DaemonSetSpec{Selector: selector("agent"), Template: podTemplate("agent")}}
		}, func(d *appsv1.DaemonSet, n int32) { d.Spec.Template.Labels["scale"] = string(rune('0' + n)) },
			func(d *appsv1.DaemonSet) { bumpTemplate(&d.Spec.Template) })
	default:
		t.Fatalf("no history of target %q", target)
	}
	return u.save(t, dir, target)
}
