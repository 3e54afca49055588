package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/history"
)

// phoenix is the configmap every namespace deletes and creates again
// under the same name (so with a new UID).
const phoenix = "phoenix"

// opCounts counts the writes a workload made.
type opCounts struct {
	creates, updates, deletes int
}

func (c opCounts) total() int { return c.creates + c.updates + c.deletes }

func (c opCounts) String() string {
	return fmt.Sprintf("%d creates, %d updates, %d deletes", c.creates, c.updates, c.deletes)
}

// workload writes configmaps and pods in its namespaces through a client
// the recorder does not see. Pods need only an image string: no scheduler
// or kubelet runs, so they stay Pending and no one else writes them.
type workload struct {
	cs  kubernetes.Interface
	ns  []string
	ops opCounts
	// lastRV is the resourceVersion of the newest write.
	lastRV string
}

// ensureNamespaces creates the namespaces that do not exist yet.
func ensureNamespaces(ctx context.Context, cs kubernetes.Interface, names ...string) error {
	for _, n := range names {
		_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{})
		if err != nil && !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create namespace %s: %w", n, err)
		}
	}
	return nil
}

func configMap(ns, name string, data map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "e2e"}},
		Data:       data,
	}
}

func pod(ns, name string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "e2e", "tier": "a"}},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: "main", Image: "registry.invalid/e2e/pause:1"}},
		},
	}
}

func (w *workload) note(rv string) { w.lastRV = rv }

func (w *workload) createConfigMap(ctx context.Context, ns, name string, data map[string]string) error {
	got, err := w.cs.CoreV1().ConfigMaps(ns).Create(ctx, configMap(ns, name, data), metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create configmap %s/%s: %w", ns, name, err)
	}
	w.ops.creates++
	w.note(got.ResourceVersion)
	return nil
}

func (w *workload) updateConfigMap(ctx context.Context, ns, name string, change func(*corev1.ConfigMap)) error {
	cm, err := w.cs.CoreV1().ConfigMaps(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get configmap %s/%s: %w", ns, name, err)
	}
	change(cm)
	got, err := w.cs.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("update configmap %s/%s: %w", ns, name, err)
	}
	w.ops.updates++
	w.note(got.ResourceVersion)
	return nil
}

func (w *workload) deleteConfigMap(ctx context.Context, ns, name string) error {
	if err := w.cs.CoreV1().ConfigMaps(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete configmap %s/%s: %w", ns, name, err)
	}
	w.ops.deletes++
	return nil
}

func (w *workload) createPod(ctx context.Context, ns, name string) error {
	got, err := w.cs.CoreV1().Pods(ns).Create(ctx, pod(ns, name), metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("create pod %s/%s: %w", ns, name, err)
	}
	w.ops.creates++
	w.note(got.ResourceVersion)
	return nil
}

func (w *workload) updatePod(ctx context.Context, ns, name string, change func(*corev1.Pod)) error {
	p, err := w.cs.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return fmt.Errorf("get pod %s/%s: %w", ns, name, err)
	}
	change(p)
	got, err := w.cs.CoreV1().Pods(ns).Update(ctx, p, metav1.UpdateOptions{})
	if err != nil {
		return fmt.Errorf("update pod %s/%s: %w", ns, name, err)
	}
	w.ops.updates++
	w.note(got.ResourceVersion)
	return nil
}

func (w *workload) deletePod(ctx context.Context, ns, name string) error {
	// An unscheduled pod is deleted at once, without a grace period.
	if err := w.cs.CoreV1().Pods(ns).Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("delete pod %s/%s: %w", ns, name, err)
	}
	w.ops.deletes++
	return nil
}

// prepopulate creates, per namespace, cms configmaps, the phoenix configmap
// and pods pods: the state a recording starts from.
func (w *workload) prepopulate(ctx context.Context, cms, pods int) error {
	for _, ns := range w.ns {
		for i := range cms {
			if err := w.createConfigMap(ctx, ns, fmt.Sprintf("cm-%02d", i), map[string]string{"i": fmt.Sprint(i)}); err != nil {
				return err
			}
		}
		if err := w.createConfigMap(ctx, ns, phoenix, map[string]string{"life": "1"}); err != nil {
			return err
		}
		for i := range pods {
			if err := w.createPod(ctx, ns, fmt.Sprintf("pod-%02d", i)); err != nil {
				return err
			}
		}
	}
	return nil
}

// mutate runs the recorded changes over a prepopulated workload (at least
// six configmaps and three pods per namespace). It creates, updates and
// deletes both resources. The phoenix configmap is deleted and created
// again.
func (w *workload) mutate(ctx context.Context) error {
	for round := range 2 {
		for _, ns := range w.ns {
			steps := []func() error{
				func() error {
					return w.createConfigMap(ctx, ns, fmt.Sprintf("new-%d", round), map[string]string{"round": fmt.Sprint(round)})
				},
				func() error {
					return w.updateConfigMap(ctx, ns, fmt.Sprintf("cm-%02d", round), func(cm *corev1.ConfigMap) {
						cm.Data["round"] = fmt.Sprint(round)
					})
				},
				func() error {
					return w.updateConfigMap(ctx, ns, fmt.Sprintf("cm-%02d", 2+round), func(cm *corev1.ConfigMap) {
						cm.Labels["round"] = fmt.Sprint(round)
					})
				},
				func() error {
					return w.updateConfigMap(ctx, ns, fmt.Sprintf("new-%d", round), func(cm *corev1.ConfigMap) {
						cm.Data["again"] = "yes"
					})
				},
				func() error { return w.createPod(ctx, ns, fmt.Sprintf("new-pod-%d", round)) },
				func() error {
					return w.updatePod(ctx, ns, fmt.Sprintf("pod-%02d", round), func(p *corev1.Pod) {
						p.Labels["tier"] = fmt.Sprintf("b%d", round)
					})
				},
				func() error {
					return w.updatePod(ctx, ns, fmt.Sprintf("new-pod-%d", round), func(p *corev1.Pod) {
						if p.Annotations == nil {
							p.Annotations = map[string]string{}
						}
						p.Annotations["e2e/round"] = fmt.Sprint(round)
					})
				},
				func() error { return w.deleteConfigMap(ctx, ns, fmt.Sprintf("cm-%02d", 4+round)) },
				func() error {
					return w.updateConfigMap(ctx, ns, phoenix, func(cm *corev1.ConfigMap) {
						cm.Data["touched"] = fmt.Sprint(round)
					})
				},
				func() error { return w.deletePod(ctx, ns, fmt.Sprintf("pod-%02d", 2-round)) },
				func() error {
					return w.createConfigMap(ctx, ns, fmt.Sprintf("late-%d", round), map[string]string{"k": strings.Repeat("v", 64)})
				},
				func() error {
					return w.updateConfigMap(ctx, ns, fmt.Sprintf("late-%d", round), func(cm *corev1.ConfigMap) {
						cm.Data["k"] = "short"
					})
				},
			}
			if round == 1 {
				steps = append(steps,
					func() error { return w.deleteConfigMap(ctx, ns, phoenix) },
					func() error { return w.createConfigMap(ctx, ns, phoenix, map[string]string{"life": "2"}) },
					func() error { return w.deleteConfigMap(ctx, ns, "late-0") },
				)
			}
			for _, step := range steps {
				if err := step(); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// realState lists gvr through the real API (in namespace ns, "" for
// all). It returns the list's resourceVersion and its objects by key.
// Each is the JSON map of the object, with its kind and apiVersion.
func realState(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns string) (string, map[string]map[string]any, error) {
	list, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return "", nil, fmt.Errorf("list %s: %w", gvr.Resource, err)
	}
	out := map[string]map[string]any{}
	for i := range list.Items {
		m, err := jsonMap(&list.Items[i])
		if err != nil {
			return "", nil, err
		}
		out[objectKey(&list.Items[i])] = m
	}
	return list.GetResourceVersion(), out, nil
}

func objectKey(u *unstructured.Unstructured) string {
	if u.GetNamespace() == "" {
		return u.GetName()
	}
	return u.GetNamespace() + "/" + u.GetName()
}

// jsonMap returns v's JSON decoded into a map, so that maps from any
// source compare alike.
func jsonMap(v any) (map[string]any, error) {
	var raw []byte
	switch x := v.(type) {
	case []byte:
		raw = x
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, fmt.Errorf("marshal %T: %w", v, err)
		}
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("unmarshal: %w", err)
	}
	return m, nil
}

// realStates lists resources (core v1 plural names) in namespace ns (""
// for all) through the real API and returns their states by resource.
func realStates(t *testing.T, dyn dynamic.Interface, ns string, resources ...string) map[string]map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]map[string]any{}
	for _, res := range resources {
		_, st, err := realState(t.Context(), dyn, schema.GroupVersionResource{Version: "v1", Resource: res}, ns)
		if err != nil {
			t.Fatal(err)
		}
		out[res] = st
	}
	return out
}

// relisted lists the resources of before again, after a recording has
// stopped, and returns the new states. It fails t if the cluster changed
// since before was listed; nothing writes once the workload is done.
func relisted(t *testing.T, dyn dynamic.Interface, ns string, before map[string]map[string]map[string]any) map[string]map[string]map[string]any {
	t.Helper()
	var resources []string
	for res := range before {
		resources = append(resources, res)
	}
	after := realStates(t, dyn, ns, resources...)
	for res := range before {
		if g, w := stateSummary(after[res]), stateSummary(before[res]); strings.Join(g, " ") != strings.Join(w, " ") {
			t.Fatalf("%s after the recording stopped: got %q, want %q as before", res, g, w)
		}
	}
	return after
}

// historyState returns the final state of l as JSON maps by key, each
// object with its kind and apiVersion as a client decodes it.
func historyState(l *history.Log) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	for _, o := range l.StateAt(l.End()) {
		m, err := jsonMap(o.WithKind(l.Resource.Kind, l.Resource.GroupVersion()))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", o.Key(), err)
		}
		out[o.Key()] = m
	}
	return out, nil
}

// stateSummary renders a state as sorted "key@rv" strings.
func stateSummary(state map[string]map[string]any) []string {
	out := make([]string, 0, len(state))
	for k, m := range state {
		rv := ""
		if md, ok := m["metadata"].(map[string]any); ok {
			rv, _ = md["resourceVersion"].(string)
		}
		out = append(out, k+"@"+rv)
	}
	sort.Strings(out)
	return out
}
