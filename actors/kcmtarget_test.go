package actors_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/actors"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// The resources the convergence checks read.
var (
	podsRes        = history.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
	replicaSetsRes = history.Resource{Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespaced: true}
	sliceRes       = history.Resource{Group: "discovery.k8s.io", Version: "v1", Resource: "endpointslices", Kind: "EndpointSlice", Namespaced: true}
)

// TestKCMTargets checks the registry: every target builds, its
// controller is no actor beside it, and an unknown name is refused.
func TestKCMTargets(t *testing.T) {
	for _, name := range actors.Targets() {
		t.Run("kcm target - "+name+" - builds - pass", func(t *testing.T) {
			ct, err := actors.Target(name)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if ct.Target.Run == nil || ct.Target.Doc == "" || ct.Resource.Resource == "" || len(ct.KCMGates) > 1 {
				t.Errorf("got target %+v resource %v gates %v, want Run, Doc, a resource, at most one gate", ct.Target, ct.Resource, ct.KCMGates)
			}
			for _, a := range ct.Actors {
				if a.Name != actors.KubeControllerManagerName {
					continue
				}
				if c := strings.TrimSuffix(name, "-stale-consistency-off") + "-controller"; strings.Contains(a.Doc, c) {
					t.Errorf("got actor %q, want one without the target's controller %s", a.Doc, c)
				}
			}
		})
	}
	t.Run("kcm target - unknown name - fail", func(t *testing.T) {
		if _, err := actors.Target("nope"); !errors.Is(err, actors.ErrUnknownTarget) {
			t.Errorf("got error %v, want ErrUnknownTarget", err)
		}
	})
}

// TestKCMSeedsConverge runs each target fault-free on its user history,
// both client paths. Each run must be clean, and end where a cluster
// ends: the recreated workload's children made by the target (or, for a
// Deployment, by its ReplicaSet).
func TestKCMSeedsConverge(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs kube-controller-manager's controllers")
	}
	tests := []struct {
		target, history string
		children        history.Resource // what the recreated workload owns at the end
		owner           history.Resource
		want            int
	}{
		{"statefulset", "statefulset", podsRes, statefulSetsRes, 2},
		{"statefulset-stale-consistency-off", "statefulset", podsRes, statefulSetsRes, 2},
		{"replicaset", "replicaset", podsRes, replicaSetsRes, 2},
		{"replicaset-stale-consistency-off", "replicaset", podsRes, replicaSetsRes, 2},
		{"deployment", "deployment", replicaSetsRes, deploymentsRes, 1},
		{"job", "job", podsRes, jobsRes, 4},
		{"daemonset", "daemonset", podsRes, daemonSetsRes, -1},
		{"endpointslice", "endpointslice", sliceRes, servicesRes, -1},
	}
	for _, tc := range tests {
		if !slices.Contains(actors.Targets(), tc.target) {
			continue // a gate-off twin, on a kubernetes without the gate
		}
		o := kcmOptions(t, tc.target, tc.history)
		c, err := fuzz.NewCampaign(o)
		if err != nil {
			t.Fatal(err)
		}
		for _, watchList := range []bool{true, false} {
			t.Run(fmt.Sprintf("kcm seed - %s, watchList %v - clean, converged - pass", tc.target, watchList), func(t *testing.T) {
				out := c.CheckPlan(t, 0, watchList, faults.Plan{})
				if out.Failed() {
					t.Fatalf("fault-free run: got a report, want none:\n%s", out.Report)
				}
				obs := out.Observation
				n := 0
				for _, w := range obs.Writes {
					if w.Code < 300 {
						n++
					}
				}
				if n == 0 {
					t.Errorf("got no write of the target's, want some")
				}
				got, err := ownedAtEnd(obs.Served, tc.owner, tc.children)
				if err != nil {
					t.Fatal(err)
				}
				if (tc.want < 0 && got < 1) || (tc.want >= 0 && got != tc.want) {
					t.Errorf("got %d %s owned by the final %s, want %d (-1: some); it ended at %v: %s", got, tc.children.Resource, tc.owner.Resource, tc.want, obs.EndedAt, finalRaw(obs.Served, tc.owner))
				}
			})
		}
	}
}

// ownedAtEnd counts the objects of children at the end of h owned by the
// one object of owner left then (for a Service, the slices naming it).
func ownedAtEnd(h *history.History, owner, children history.Resource) (int, error) {
	ol, ok := h.Log(owner)
	if !ok {
		return 0, fmt.Errorf("no %s served", owner.Resource)
	}
	owners := ol.StateAt(ol.End())
	if len(owners) != 1 {
		return 0, fmt.Errorf("got %d %s at the end, want 1", len(owners), owner.Resource)
	}
	cl, ok := h.Log(children)
	if !ok {
		return 0, nil
	}
	n := 0
	for _, o := range cl.StateAt(cl.End()) {
		if owner.Resource == "services" {
			if o.Labels["kubernetes.io/service-name"] == owners[0].Name {
				n++
			}
			continue
		}
		var m struct {
			Metadata struct {
				DeletionTimestamp *string `json:"deletionTimestamp"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(o.Raw, &m); err != nil {
			return 0, err
		}
		for _, uid := range o.Owners() {
			if uid == owners[0].UID && m.Metadata.DeletionTimestamp == nil {
				n++
			}
		}
	}
	return n, nil
}

// More resources of the checks.
var (
	statefulSetsRes = history.Resource{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true}
	deploymentsRes  = history.Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}
	jobsRes         = history.Resource{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true}
	daemonSetsRes   = history.Resource{Group: "apps", Version: "v1", Resource: "daemonsets", Kind: "DaemonSet", Namespaced: true}
	servicesRes     = history.Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true}
)

// finalRaw is the JSON of owner's objects at the end of h, for a failure.
func finalRaw(h *history.History, owner history.Resource) string {
	l, ok := h.Log(owner)
	if !ok {
		return ""
	}
	var b strings.Builder
	for _, o := range l.StateAt(l.End()) {
		b.Write(o.Raw)
	}
	return b.String()
}
