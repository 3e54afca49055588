package actors

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	"k8s.io/kubernetes/cmd/kube-controller-manager/names"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/history"
)

// ErrUnknownTarget says a target name is none of Targets.
var ErrUnknownTarget = errors.New("unknown kube-controller-manager target")

// ControllerTarget is one of kube-controller-manager's controllers as a
// fuzz target, with what its runs need beside it.
type ControllerTarget struct {
	// Target runs the controller alone in a kube-controller-manager on the
	// run's replay. Its writes are the target's: the run's write log,
	// judged by the invariants and same-outcome.
	Target harness.Target
	// Resource is the run's resource, whose informer (the controller's)
	// the run's probe judges: the controller's own kind, or for the
	// EndpointSlice controller the Services it reads (a user history
	// records no slices).
	Resource history.Resource
	// Actors run beside it (fuzz.Options.Actors): the node actors and the
	// other kube-controller-manager controllers it needs, in one
	// kube-controller-manager. The target's controller is never among them.
	// The garbage collector is not either: the replay's own model of it
	// deletes a deleted owner's dependents (docs/controllers.md says why).
	Actors []actor.Actor
	// Gates are client-go gates its runs fix (fuzz.Options.Gates).
	// AtomicFIFO is on: kube-controller-manager 1.37.2 refuses to start
	// with it off while a StaleControllerConsistency gate is on (its
	// default).
	Gates harness.Gates
	// KCMGates are the kube-controller-manager feature gates the
	// controller is built with.
	KCMGates map[string]bool
}

// targetSpec is one entry of targets.
type targetSpec struct {
	name, controller, doc string
	resource              history.Resource
	beside                []string // other controllers, in one kube-controller-manager actor
	nodes                 []string // node actors, by name
	gates                 map[string]bool
}

// The resources of the targets.
var (
	statefulSets   = history.Resource{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true}
	replicaSetsRes = history.Resource{Group: "apps", Version: "v1", Resource: "replicasets", Kind: "ReplicaSet", Namespaced: true}
	deployments    = history.Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}
	jobs           = history.Resource{Group: "batch", Version: "v1", Resource: "jobs", Kind: "Job", Namespaced: true}
	daemonSets     = history.Resource{Group: "apps", Version: "v1", Resource: "daemonsets", Kind: "DaemonSet", Namespaced: true}
	servicesRes    = history.Resource{Version: "v1", Resource: "services", Kind: "Service", Namespaced: true}
)

// staleOff is the suffix of a target whose controller is built with its
// KEP-5647 gate off.
const staleOff = "-stale-consistency-off"

// targets are the kube-controller-manager targets. A controller with a
// KEP-5647 gate (StaleControllerConsistency<Kind>, Beta and on by default
// since 1.36) has two: its gate on (its name) and off (name+staleOff).
var targets = func() []targetSpec {
	pods := []string{"scheduler", "kubelet"}
	base := []targetSpec{
		{name: "statefulset", controller: names.StatefulSetController, resource: statefulSets,
			doc:   "the StatefulSet controller; the scheduler, kubelet and volume provisioner beside it",
			nodes: []string{"volume-provisioner", "scheduler", "kubelet"},
			gates: map[string]bool{"StaleControllerConsistencyStatefulSet": true}},
		{name: "replicaset", controller: names.ReplicaSetController, resource: replicaSetsRes,
			doc:   "the ReplicaSet controller; the scheduler and kubelet beside it",
			nodes: pods, gates: map[string]bool{"StaleControllerConsistencyReplicaSet": true}},
		{name: "deployment", controller: names.DeploymentController, resource: deployments,
			doc:    "the Deployment controller; the ReplicaSet controller, scheduler and kubelet beside it",
			beside: []string{names.ReplicaSetController}, nodes: pods},
		{name: "job", controller: names.JobController, resource: jobs,
			doc:   "the Job controller; the scheduler and kubelet beside it",
			nodes: pods, gates: map[string]bool{"StaleControllerConsistencyJob": true}},
		{name: "daemonset", controller: names.DaemonSetController, resource: daemonSets,
			doc:   "the DaemonSet controller; the kubelet beside it (the scheduler stand-in ignores node affinity)",
			nodes: []string{"kubelet"}, gates: map[string]bool{"StaleControllerConsistencyDaemonSet": true}},
		{name: "endpointslice", controller: names.EndpointSliceController, resource: servicesRes,
			doc:    "the EndpointSlice controller; the ReplicaSet controller, scheduler and kubelet beside it",
			beside: []string{names.ReplicaSetController}, nodes: pods},
	}
	var out []targetSpec
	known := utilfeature.DefaultMutableFeatureGate.GetAll()
	for _, t := range base {
		t.doc = fmt.Sprintf("%s (k8s.io/kubernetes %s)", t.doc, KubernetesVersion())
		for g := range t.gates {
			if _, ok := known[featuregate.Feature(g)]; !ok {
				t.gates = nil // a kubernetes before the gate: its controller as that version has it, no twin
			}
		}
		out = append(out, t)
		for g := range t.gates {
			off := t
			off.name += staleOff
			off.gates = map[string]bool{g: false}
			off.doc = strings.Replace(t.doc, "controller;", "controller built with "+g+" off;", 1)
			out = append(out, off)
		}
	}
	return out
}()

// Targets returns the names of the kube-controller-manager targets, in
// order.
func Targets() []string {
	out := make([]string, 0, len(targets))
	for _, t := range targets {
		out = append(out, t.name)
	}
	return out
}

// Target returns the kube-controller-manager target named name (one of
// Targets), or ErrUnknownTarget.
func Target(name string) (ControllerTarget, error) {
	i := slices.IndexFunc(targets, func(t targetSpec) bool { return t.name == name })
	if i < 0 {
		return ControllerTarget{}, fmt.Errorf("%w %q (known: %s)", ErrUnknownTarget, name, strings.Join(Targets(), ", "))
	}
	s := targets[i]
	var acts []actor.Actor
	if len(s.beside) > 0 { // none named would be every controller
		beside, err := KubeControllerManager(s.beside...)
		if err != nil {
			return ControllerTarget{}, err
		}
		acts = append(acts, beside)
	}
	for _, n := range s.nodes {
		j := slices.IndexFunc(NodeActors(), func(a actor.Actor) bool { return a.Name == n })
		if j < 0 {
			return ControllerTarget{}, fmt.Errorf("target %s: no node actor %q", s.name, n)
		}
		acts = append(acts, NodeActors()[j])
	}
	for i := range acts {
		acts[i].Defaults = Defaults()
	}
	return ControllerTarget{
		Target: harness.Target{Name: "kcm-" + s.name, Doc: s.doc, WatchListGate: true, RetryBound: harness.ControllerRetryBound,
			StoreOmits: []string{"metadata.managedFields"}, Run: targetRun(s)},
		Resource: s.resource,
		Actors:   acts,
		Gates:    gatesFor(s),
		KCMGates: s.gates,
	}, nil
}

// gatesFor is the client-go gates a run of s fixes: AtomicFIFO on when
// s's controller is built with a KEP-5647 gate, which needs it.
func gatesFor(s targetSpec) harness.Gates {
	if len(s.gates) == 0 {
		return nil
	}
	return harness.Gates{harness.GateAtomicFIFO: true}
}

// targetRun runs s's controller alone in a kube-controller-manager on
// the run's replay, built with s's gates. Its informer of env.Resource
// (from the ControllerContext's shared factory, the one the controller
// reads) is wired into env's probe before the informers start.
func targetRun(s targetSpec) func(ctx context.Context, env *harness.Env) error {
	return func(ctx context.Context, env *harness.Env) error {
		return runKCM(ctx, env.Config, []string{s.controller}, kcmHooks{gates: s.gates, built: func(k *kcm) error {
			gvr := schema.GroupVersionResource{Group: env.Resource.Group, Version: env.Resource.Version, Resource: env.Resource.Resource}
			inf, err := k.cc.InformerFactory.ForResource(gvr)
			if err != nil {
				return fmt.Errorf("target %s: informer of %s: %w", s.name, gvr, err)
			}
			_, err = env.Probe.AddEventHandler(inf.Informer(), nil)
			return err
		}})
	}
}
