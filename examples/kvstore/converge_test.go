package kvstore

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// statefulSets is the resource of the KVStore's StatefulSet.
var statefulSets = history.Resource{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true}

// TestSeedsConverge runs the correct operator and the planted one, with
// the actors, fault-free on every cassette and client path. It wants
// what a cluster gives. Before the scale-down, 3 pods are ready at once.
// Then the StatefulSet is at 1 replica with 1 pod ready. The KVStore is
// Ready with 1 ready replica, and only ordinal 0's PVC is left.
func TestSeedsConverge(t *testing.T) {
	for _, planted := range []bool{false, true} {
		name, opts := "kvstore", []Option(nil)
		if planted {
			name, opts = "kvstore-status-cleanup", []Option{WithStatusCleanup()}
		}
		o := options(t, target(t, name, opts...))
		o.Scenarios = false
		c, err := fuzz.NewCampaign(o)
		if err != nil {
			t.Fatal(err)
		}
		for i, path := range cassettes {
			for _, watchList := range []bool{true, false} {
				t.Run(fmt.Sprintf("converge - %s, %s, watchList %v - pods ready, KVStore Ready - pass", name, path, watchList), func(t *testing.T) {
					out := c.CheckPlan(t, i, watchList, faults.Plan{})
					if out.Failed() {
						t.Fatalf("fault-free run: got a report, want none:\n%s", out.Report)
					}
					if err := converged(out.Observation.Served); err != nil {
						t.Error(err)
					}
				})
			}
		}
	}
}

// converged says what of the served history h differs from a scale-down
// of KVStore demo from 3 ready replicas to 1.
func converged(h *history.History) error {
	var errs []string
	var kv KVStore
	if err := finalObject(h, kvstores, testNS+"/"+testName, &kv); err != nil {
		return err
	}
	if c := meta.FindStatusCondition(kv.Status.Conditions, ConditionReady); c == nil || c.Status != metav1.ConditionTrue || kv.Status.ReadyReplicas != 1 {
		errs = append(errs, fmt.Sprintf("kvstore: got Ready %v, readyReplicas %d, want True, 1", c, kv.Status.ReadyReplicas))
	}
	var sts appsv1.StatefulSet
	if err := finalObject(h, statefulSets, testNS+"/"+testName, &sts); err != nil {
		return err
	}
	if replicasOf(&sts) != 1 || sts.Status.ReadyReplicas != 1 {
		errs = append(errs, fmt.Sprintf("statefulset: got replicas %d, readyReplicas %d, want 1, 1", replicasOf(&sts), sts.Status.ReadyReplicas))
	}
	if n, err := mostReadyPods(h); err != nil || n != 3 {
		errs = append(errs, fmt.Sprintf("pods ready at once: got %d (%v), want 3", n, err))
	}
	l, ok := h.Log(pvcs)
	if !ok {
		return fmt.Errorf("pvcs: got no log, want one")
	}
	var left []string
	for _, o := range l.StateAt(l.End()) {
		left = append(left, o.Name)
	}
	slices.Sort(left)
	if !slices.Equal(left, []string{"data-demo-0"}) {
		errs = append(errs, fmt.Sprintf("pvcs left: got %v, want [data-demo-0]", left))
	}
	if len(errs) > 0 {
		return fmt.Errorf("%s", strings.Join(errs, "; "))
	}
	return nil
}

// finalObject decodes the object at key in r's final served state into v.
func finalObject(h *history.History, r history.Resource, key string, v any) error {
	l, ok := h.Log(r)
	if !ok {
		return fmt.Errorf("%s: got no log, want one", r.Resource)
	}
	o, ok := l.ObjectAt(key, l.End())
	if !ok {
		return fmt.Errorf("%s %s: got none at the end, want one", r.Resource, key)
	}
	return json.Unmarshal(o.Raw, v)
}

// mostReadyPods returns the most pods Ready at one resourceVersion of h.
func mostReadyPods(h *history.History) (int, error) {
	l, ok := h.Log(pods)
	if !ok {
		return 0, fmt.Errorf("pods: got no log, want one")
	}
	most := 0
	for pos := 0; pos <= l.End(); pos++ {
		n := 0
		for _, o := range l.StateAt(pos) {
			var p corev1.Pod
			if err := json.Unmarshal(o.Raw, &p); err != nil {
				return 0, err
			}
			for _, c := range p.Status.Conditions {
				if c.Type == corev1.PodReady && c.Status == corev1.ConditionTrue {
					n++
				}
			}
		}
		most = max(most, n)
	}
	return most, nil
}
