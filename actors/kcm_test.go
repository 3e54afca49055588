package actors_test

import (
	"context"
	"flag"
	"os"
	"k8s.io/klog/v2"
	"fmt"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/actors"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/synth"
)

// ns is the namespace the tests' objects live in.
const ns = "default"

// settle is how long (virtual time) a check waits for the controllers.
const settle = 2 * time.Minute

// kcmCase is one run of a kube-controller-manager actor: what the test
// does through its own client, and what it then must see.
type kcmCase struct {
	name        string
	controllers []string // none: every controller
	act         func(ctx context.Context, c kubernetes.Interface) error
	// check returns what is wrong now ("got X, want Y"); the test waits
	// up to settle for it to return nothing.
	check func(ctx context.Context, c kubernetes.Interface) []string
}

// TestKubeControllerManager runs kube-controller-manager's real
// controllers as an actor in a synctest bubble against a replay, with no
// socket and no real-time wait: a StatefulSet gets its pods and a
// ControllerRevision, a Deployment its ReplicaSet and pods, and the
// garbage collector removes dependents in the foreground and orphans
// them. The actor's Run returns once ctx ends (the bubble would not end
// with one of its goroutines left).
func TestKubeControllerManager(t *testing.T) {
	restore := harness.QuietClientGo()
	t.Cleanup(restore)
	if os.Getenv("KCM_DEBUG") != "" {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("v", os.Getenv("KCM_DEBUG"))
		klog.SetOutput(os.Stderr)
		_ = fs.Set("logtostderr", "true")
	}
	fg, orphan := metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan
	cases := []kcmCase{{
		name: "statefulset - 3 replicas in parallel - pass",
		act: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.AppsV1().StatefulSets(ns).Create(ctx, statefulSet("web", 3), metav1.CreateOptions{})
			return err
		},
		check: func(ctx context.Context, c kubernetes.Interface) []string {
			sts, err := c.AppsV1().StatefulSets(ns).Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return []string{fmt.Sprintf("got %v getting the StatefulSet, want it", err)}
			}
			out := controlled(ctx, c, "pods", sts.UID, []string{"web-0", "web-1", "web-2"})
			out = append(out, controlledCount(ctx, c, "controllerrevisions", sts.UID, 1)...)
			if sts.Status.Replicas != 3 {
				out = append(out, fmt.Sprintf("got status.replicas %d, want 3", sts.Status.Replicas))
			}
			return out
		},
	}, {
		name: "deployment - 2 replicas - pass",
		act: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.AppsV1().Deployments(ns).Create(ctx, deploymentOf("api", 2), metav1.CreateOptions{})
			return err
		},
		check: func(ctx context.Context, c kubernetes.Interface) []string {
			d, err := c.AppsV1().Deployments(ns).Get(ctx, "api", metav1.GetOptions{})
			if err != nil {
				return []string{fmt.Sprintf("got %v getting the Deployment, want it", err)}
			}
			rss := owned(ctx, c, "replicasets", d.UID)
			if len(rss) != 1 {
				return []string{fmt.Sprintf("got ReplicaSets %v, want 1 controlled by the Deployment", rss)}
			}
			rs, err := c.AppsV1().ReplicaSets(ns).Get(ctx, rss[0], metav1.GetOptions{})
			if err != nil {
				return []string{fmt.Sprintf("got %v getting ReplicaSet %s, want it", err, rss[0])}
			}
			return controlledCount(ctx, c, "pods", rs.UID, 2)
		},
	}, {
		name: "job - 2 completions, parallelism 2 - pass",
		act: func(ctx context.Context, c kubernetes.Interface) error {
			_, err := c.BatchV1().Jobs(ns).Create(ctx, jobOf("once", 2), metav1.CreateOptions{})
			return err
		},
		check: func(ctx context.Context, c kubernetes.Interface) []string {
			j, err := c.BatchV1().Jobs(ns).Get(ctx, "once", metav1.GetOptions{})
			if err != nil {
				return []string{fmt.Sprintf("got %v getting the Job, want it", err)}
			}
			return controlledCount(ctx, c, "pods", j.UID, 2)
		},
	}, {
		name: "garbage collector - deployment deleted in the foreground - pass",
		act: func(ctx context.Context, c kubernetes.Interface) error {
			if _, err := c.AppsV1().Deployments(ns).Create(ctx, deploymentOf("api", 2), metav1.CreateOptions{}); err != nil {
				return err
			}
			if problems := waitFor(ctx, c, func(ctx context.Context, c kubernetes.Interface) []string {
				return countOf(ctx, c, "pods", 2)
			}); len(problems) > 0 {
				return fmt.Errorf("before the delete: %v", problems)
			}
			return c.AppsV1().Deployments(ns).Delete(ctx, "api", metav1.DeleteOptions{PropagationPolicy: &fg})
		},
		check: func(ctx context.Context, c kubernetes.Interface) []string {
			out := countOf(ctx, c, "deployments", 0)
			out = append(out, countOf(ctx, c, "replicasets", 0)...)
			return append(out, countOf(ctx, c, "pods", 0)...)
		},
	}, {
		name:        "garbage collector - deployment deleted in the foreground, no collector running - fail",
		controllers: []string{"deployment-controller", "replicaset-controller"},
		act: func(ctx context.Context, c kubernetes.Interface) error {
			if _, err := c.AppsV1().Deployments(ns).Create(ctx, deploymentOf("api", 2), metav1.CreateOptions{}); err != nil {
				return err
			}
			if problems := waitFor(ctx, c, func(ctx context.Context, c kubernetes.Interface) []string {
				return countOf(ctx, c, "pods", 2)
			}); len(problems) > 0 {
				return fmt.Errorf("before the delete: %v", problems)
			}
			return c.AppsV1().Deployments(ns).Delete(ctx, "api", metav1.DeleteOptions{PropagationPolicy: &fg})
		},
		check: func(ctx context.Context, c kubernetes.Interface) []string {
			d, err := c.AppsV1().Deployments(ns).Get(ctx, "api", metav1.GetOptions{})
			if err != nil || d.DeletionTimestamp == nil {
				return []string{fmt.Sprintf("got %v (deletionTimestamp %v), want the Deployment kept being deleted: nothing collects", err, d.GetDeletionTimestamp())}
			}
			return countOf(ctx, c, "pods", 2)
		},
	}, {
		name: "garbage collector - replicaset deleted orphaning its pods - pass",
		act: func(ctx context.Context, c kubernetes.Interface) error {
			if _, err := c.AppsV1().ReplicaSets(ns).Create(ctx, replicaSetOf("cache", 2), metav1.CreateOptions{}); err != nil {
				return err
			}
			if problems := waitFor(ctx, c, func(ctx context.Context, c kubernetes.Interface) []string {
				return countOf(ctx, c, "pods", 2)
			}); len(problems) > 0 {
				return fmt.Errorf("before the delete: %v", problems)
			}
			return c.AppsV1().ReplicaSets(ns).Delete(ctx, "cache", metav1.DeleteOptions{PropagationPolicy: &orphan})
		},
		check: func(ctx context.Context, c kubernetes.Interface) []string {
			out := countOf(ctx, c, "replicasets", 0)
			out = append(out, countOf(ctx, c, "pods", 2)...)
			pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return append(out, fmt.Sprintf("got %v listing pods, want them", err))
			}
			for _, p := range pods.Items {
				if len(p.OwnerReferences) > 0 {
					out = append(out, fmt.Sprintf("pod %s: got ownerReferences %v, want none (orphaned)", p.Name, p.OwnerReferences))
				}
			}
			return out
		},
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { runCase(t, tc) })
		})
	}
}

// runCase runs tc in the calling bubble: a replay of a history holding
// only the namespace, the kube-controller-manager actor on it, tc's acts
// through a client of the test's own, then tc's check until it holds or
// settle passed; then it stops the actor and waits for its Run.
func runCase(t *testing.T, tc kcmCase) {
	srv := replayer.New(namespaceHistory(t))
	a, err := actors.KubeControllerManager(tc.controllers...)
	if err != nil {
		t.Fatalf("got %v, want the actor", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx, actor.Env{Config: actorConfig(srv, a.Name)}) }()
	c := kubernetes.NewForConfigOrDie(&rest.Config{Host: "http://replay", Transport: srv.Transport()})
	if err := tc.act(ctx, c); err != nil {
		t.Errorf("got %v acting, want no error", err)
	}
	for _, p := range waitFor(ctx, c, tc.check) {
		t.Error(p)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("got Run's error %v, want none", err)
	}
}

// actorConfig is the rest.Config an actor named name reaches srv with.
func actorConfig(srv *replayer.Server, name string) *rest.Config {
	return &rest.Config{Host: "http://replay", Transport: srv.Transport(), UserAgent: actor.UserAgent(name)}
}

// namespaceHistory is a history of the namespace ns alone.
func namespaceHistory(t *testing.T) *history.History {
	b := synth.NewBuilder()
	b.Add(&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	b.Snapshot()
	h, err := b.History()
	if err != nil {
		t.Fatalf("got %v building the history, want none", err)
	}
	return h
}

// waitFor waits (virtual time) for check to hold, up to settle, and
// returns its last problems.
func waitFor(ctx context.Context, c kubernetes.Interface, check func(context.Context, kubernetes.Interface) []string) []string {
	deadline := time.Now().Add(settle)
	for {
		problems := check(ctx, c)
		if len(problems) == 0 || time.Now().After(deadline) {
			return problems
		}
		time.Sleep(time.Second)
	}
}

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

// statefulSet is a StatefulSet of n replicas, defaulted as kube-apiserver does (so are the others below), started in parallel (the
// default OrderedReady waits for each pod to be ready, and no kubelet
// makes one ready here).
func statefulSet(name string, n int32) *appsv1.StatefulSet {
	o := &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: appsv1.StatefulSetSpec{
		Replicas: &n, Selector: selector(name), Template: podTemplate(name), ServiceName: name,
		PodManagementPolicy: appsv1.ParallelPodManagement,
	}}
	actors.Default(o)
	return o
}

// deploymentOf is a Deployment of n replicas.
func deploymentOf(name string, n int32) *appsv1.Deployment {
	o := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: appsv1.DeploymentSpec{
		Replicas: &n, Selector: selector(name), Template: podTemplate(name),
	}}
	actors.Default(o)
	return o
}

// replicaSetOf is a ReplicaSet of n replicas.
func replicaSetOf(name string, n int32) *appsv1.ReplicaSet {
	o := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: appsv1.ReplicaSetSpec{
		Replicas: &n, Selector: selector(name), Template: podTemplate(name),
	}}
	actors.Default(o)
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
	actors.Default(o)
	return o
}
