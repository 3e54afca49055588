package differential

import (
	"context"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// Params are what a script needs to know of the node stand-ins.
type Params struct {
	// StorageClassName is the class of a StatefulSet's volume claims
	// ("" leaves it unset: the default class).
	StorageClassName string
	// FailAnnotation is the pod annotation (key and value) that makes the
	// kubelet stand-in fail a pod: the Job script sets it on one pod.
	FailAnnotation [2]string
	// Poll is how often a script polls while it waits (default 100ms).
	Poll time.Duration
	// StepTimeout bounds each wait (default 2 minutes).
	StepTimeout time.Duration
}

// Script is one scenario run the same way on both sides.
type Script struct {
	// Name is the script's name: its subtest name and the prefix of its
	// namespace ("diff-" + Name).
	Name string
	// Doc says in one line what it does.
	Doc string
	// Run runs the script in Namespace(), which it creates.
	Run func(ctx context.Context, cs kubernetes.Interface, p Params) error
}

// Namespace is the namespace the script works in.
func (s Script) Namespace() string { return "diff-" + s.Name }

// Scripts returns the differential's scripts, in the order they run.
func Scripts() []Script {
	return []Script{
		{Name: "statefulset", Doc: "a StatefulSet with volume claims scaled 0→3, its template changed (rolling update), scaled 3→1", Run: statefulSetScript},
		{Name: "deployment", Doc: "a Deployment rolled out, updated, rolled back", Run: deploymentScript},
		{Name: "job", Doc: "a Job of 2 completions run to completion, its first pod failing", Run: jobScript},
		{Name: "propagation", Doc: "three Deployments deleted with background, foreground and orphan propagation", Run: propagationScript},
		{Name: "namespace", Doc: "a namespace holding a Deployment, a Service and a ConfigMap deleted", Run: namespaceScript},
	}
}

// ErrScript says a script's step failed or did not see the cluster reach
// the state it waits for.
var ErrScript = errors.New("differential: script step failed")

// defaults returns p with its zero fields defaulted.
func (p Params) defaults() Params {
	if p.Poll == 0 {
		p.Poll = 100 * time.Millisecond
	}
	if p.StepTimeout == 0 {
		p.StepTimeout = 2 * time.Minute
	}
	return p
}

// waitFor polls cond until it holds, fails, or the step's timeout ends;
// what names the state awaited, for the error. The last error cond
// returned while not holding is quoted.
func waitFor(ctx context.Context, p Params, what string, cond func(ctx context.Context) (bool, error)) error {
	ctx, cancel := context.WithTimeout(ctx, p.StepTimeout)
	defer cancel()
	var last error
	err := wait.PollUntilContextCancel(ctx, p.Poll, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if err != nil {
			last = err
			return false, nil
		}
		return ok, nil
	})
	if err != nil {
		return fmt.Errorf("%w: waiting for %s: %v (last error: %v)", ErrScript, what, err, last)
	}
	return nil
}

// step wraps a failed call's error with what the script was doing.
func step(what string, err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("%w: %s: %w", ErrScript, what, err)
}

// createNamespace creates ns.
func createNamespace(ctx context.Context, cs kubernetes.Interface, ns string) error {
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	return step("create namespace "+ns, err)
}

// gone returns a condition holding once get answers NotFound.
func gone(get func(ctx context.Context) error) func(ctx context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		err := get(ctx)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	}
}

// podCount returns a condition holding once ns has n pods matching
// selector, none of them being deleted unless counted so.
func podCount(cs kubernetes.Interface, ns, selector string, n int) func(ctx context.Context) (bool, error) {
	return func(ctx context.Context) (bool, error) {
		pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: selector})
		if err != nil {
			return false, err
		}
		return len(pods.Items) == n, nil
	}
}

// podTemplate returns a pod template labelled app=app whose container runs
// image.
func podTemplate(app, image string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "main", Image: image}},
			// short grace: the kubelet stand-in waits it out on both sides
			TerminationGracePeriodSeconds: ptr(int64(1)),
		},
	}
}

func ptr[T any](v T) *T { return &v }
