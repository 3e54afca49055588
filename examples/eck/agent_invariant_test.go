package eck

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	agentv1alpha1 "github.com/elastic/cloud-on-k8s/v3/pkg/apis/agent/v1alpha1"
	"github.com/elastic/cloud-on-k8s/v3/pkg/controller/agent"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// ErrAgentVehicle says an Agent's end state has not the one workload its
// spec asks for.
var ErrAgentVehicle = errors.New("an agent's vehicle does not match its spec")

// agentVehicleMatchesSpec is the Agent controller's promise, judged on
// the run's end state as served. (ECK's Agent CRD: "either daemonSet or
// deployment or statefulSet must be specified"; reconcile.go deletes the
// other kinds.) Every Agent has exactly one workload named <name>-agent,
// of the kind its spec asks. That Agent (its UID) controls it. It runs
// the spec's replicas (1 when unset) and its Pods carry the spec's
// version. No workload of another kind is left under that name.
var agentVehicleMatchesSpec = fuzz.NewInvariant("agent-vehicle-matches-spec",
	"every Agent ends with exactly one workload named <name>-agent, the DaemonSet, Deployment or StatefulSet its spec asks (with its replicas and version), controlled by that Agent's UID, and none of another kind",
	func(truth *history.Log, obs *fuzz.Observation) error {
		al, ok := obs.Served.Log(agents)
		if !ok {
			al = truth
		}
		kinds := map[string]map[string]*history.Object{
			"DaemonSet":   servedState(obs, daemonSets),
			"Deployment":  servedState(obs, deployments),
			"StatefulSet": servedState(obs, statefulSets),
		}
		var errs []error
		for _, o := range al.StateAt(al.End()) {
			var a agentv1alpha1.Agent
			if err := json.Unmarshal(o.Raw, &a); err != nil {
				return fmt.Errorf("%s: %w", o.Key(), err)
			}
			if a.DeletionTimestamp != nil {
				continue
			}
			key := a.Namespace + "/" + agent.Name(a.Name)
			wantKind, replicas := "DaemonSet", (*int32)(nil)
			switch {
			case a.Spec.Deployment != nil:
				wantKind, replicas = "Deployment", a.Spec.Deployment.Replicas
			case a.Spec.StatefulSet != nil:
				wantKind, replicas = "StatefulSet", a.Spec.StatefulSet.Replicas
			}
			for kind, st := range kinds {
				if _, ok := st[key]; ok && kind != wantKind {
					errs = append(errs, fmt.Errorf("%w: agent %s wants a %s, and a %s %s is left", ErrAgentVehicle, o.Key(), wantKind, kind, key))
				}
			}
			w, ok := kinds[wantKind][key]
			if !ok {
				errs = append(errs, fmt.Errorf("%w: agent %s (uid %s) has no %s %s", ErrAgentVehicle, o.Key(), a.UID, wantKind, key))
				continue
			}
			if err := checkAgentVehicle(w, &a, wantKind != "DaemonSet", replicas); err != nil {
				errs = append(errs, fmt.Errorf("%w: agent %s: %s %s: %w", ErrAgentVehicle, o.Key(), wantKind, key, err))
			}
		}
		sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
		return errors.Join(errs...)
	})

// servedState is the end state of r as the run served it, by key.
func servedState(obs *fuzz.Observation, r history.Resource) map[string]*history.Object {
	out := map[string]*history.Object{}
	if l, ok := obs.Served.Log(r); ok {
		for _, o := range l.StateAt(l.End()) {
			out[o.Key()] = o
		}
	}
	return out
}

// checkAgentVehicle says whether the workload w is controlled by a, its
// Pods carry a's version, and (scaled) it runs the replicas a's spec asks
// (1 when unset).
func checkAgentVehicle(w *history.Object, a *agentv1alpha1.Agent, scaled bool, replicas *int32) error {
	var m struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
		Spec     struct {
			Replicas *int32                 `json:"replicas"`
			Template corev1.PodTemplateSpec `json:"template"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(w.Raw, &m); err != nil {
		return err
	}
	ref := metav1.GetControllerOf(&m.Metadata)
	if ref == nil || ref.UID != a.UID {
		got := "none"
		if ref != nil {
			got = string(ref.UID)
		}
		return fmt.Errorf("controller uid %s, want %s", got, a.UID)
	}
	if got := m.Spec.Template.Labels[agent.VersionLabelName]; got != a.Spec.Version {
		return fmt.Errorf("pod version label %q, want %q", got, a.Spec.Version)
	}
	if !scaled {
		return nil
	}
	want := int32(1)
	if replicas != nil {
		want = *replicas
	}
	if m.Spec.Replicas == nil || *m.Spec.Replicas != want {
		got := "unset"
		if m.Spec.Replicas != nil {
			got = fmt.Sprint(*m.Spec.Replicas)
		}
		return fmt.Errorf("replicas %s, want %d", got, want)
	}
	return nil
}
