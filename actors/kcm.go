package actors

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
	"k8s.io/kubernetes/cmd/kube-controller-manager/app"
	"k8s.io/kubernetes/cmd/kube-controller-manager/names"

	"github.com/lwreplay/lwreplay/actor"
)

// KubeControllerManagerName is the name of the actor that runs every
// controller of Controllers in one kube-controller-manager.
const KubeControllerManagerName = "kube-controller-manager"

// ErrUnknownController says a controller name is none of Controllers.
var ErrUnknownController = errors.New("unknown kube-controller-manager controller")

// controller is one of kube-controller-manager's controllers an actor
// runs. It holds its name (names.*), what it does, its package under
// k8s.io/kubernetes/pkg/controller, and what it takes over from a
// recording.
type controller struct {
	name, does, pkg string
	takes           []actor.Takeover
}

// Group kinds the controllers' children name as their controller.
var (
	statefulSet = schema.GroupKind{Group: "apps", Kind: "StatefulSet"}
	replicaSet  = schema.GroupKind{Group: "apps", Kind: "ReplicaSet"}
	deployment  = schema.GroupKind{Group: "apps", Kind: "Deployment"}
	daemonSet   = schema.GroupKind{Group: "apps", Kind: "DaemonSet"}
	job         = schema.GroupKind{Group: "batch", Kind: "Job"}
	service     = schema.GroupKind{Kind: "Service"}
)

// Resources the controllers make.
var (
	pods                   = schema.GroupResource{Resource: "pods"}
	persistentVolumeClaims = schema.GroupResource{Resource: "persistentvolumeclaims"}
	controllerRevisions    = schema.GroupResource{Group: "apps", Resource: "controllerrevisions"}
	replicaSets            = schema.GroupResource{Group: "apps", Resource: "replicasets"}
	endpointSlices         = schema.GroupResource{Group: "discovery.k8s.io", Resource: "endpointslices"}
)

// takes is a Takeover of each of rs whose controller is of kind.
func takes(kind schema.GroupKind, rs ...schema.GroupResource) []actor.Takeover {
	out := make([]actor.Takeover, 0, len(rs))
	for _, r := range rs {
		out = append(out, actor.Takeover{Resource: r, ControllerKinds: []schema.GroupKind{kind}})
	}
	return out
}

// controllers are the kube-controller-manager controllers lwreplay runs,
// in the order a kube-controller-manager actor builds them.
var controllers = []controller{
	{names.StatefulSetController, "makes the pods, revisions and volume claims of StatefulSets", "statefulset",
		takes(statefulSet, pods, controllerRevisions, persistentVolumeClaims)},
	{names.ReplicaSetController, "makes and deletes the pods of ReplicaSets", "replicaset", takes(replicaSet, pods)},
	{names.DeploymentController, "rolls Deployments out through their ReplicaSets", "deployment", takes(deployment, replicaSets)},
	{names.JobController, "runs the pods of Jobs to completion", "job", takes(job, pods)},
	{names.DaemonSetController, "makes a pod of each DaemonSet on each node", "daemon", takes(daemonSet, pods, controllerRevisions)},
	{names.EndpointSliceController, "keeps the EndpointSlices of Services", "endpointslice", takes(service, endpointSlices)},
	{names.NamespaceController, "empties and removes namespaces being deleted", "namespace", nil},
	{names.GarbageCollectorController, "deletes dependents whose owners are gone, orphans, foreground deletion", "garbagecollector", nil},
}

// Controllers returns the names of the kube-controller-manager
// controllers lwreplay runs as actors, in build order.
func Controllers() []string {
	out := make([]string, 0, len(controllers))
	for _, c := range controllers {
		out = append(out, c.name)
	}
	return out
}

// controllerActor is the actor of c alone: a kube-controller-manager
// run with --controllers=<c's name>.
func controllerActor(c controller) actor.Actor {
	return actor.Actor{
		Name:     c.name,
		Doc:      fmt.Sprintf("%s (k8s.io/kubernetes/pkg/controller/%s %s)", c.does, c.pkg, KubernetesVersion()),
		Takes:    c.takes,
		Collects: c.name == names.GarbageCollectorController,
		Run: func(ctx context.Context, env actor.Env) error {
			return run(ctx, env, []string{c.name})
		},
	}
}

// KubeControllerManager returns an actor named KubeControllerManagerName.
// It runs the named controllers (all of Controllers when none is named) in
// one kube-controller-manager. They share one ControllerContext and one
// informer factory, built and run as kube-controller-manager builds and
// runs them. It takes over what each controller takes over, and collects
// when the garbage collector is among them. An unknown name is
// ErrUnknownController.
func KubeControllerManager(controllerNames ...string) (actor.Actor, error) {
	if len(controllerNames) == 0 {
		controllerNames = Controllers()
	}
	var chosen []controller
	var errs []error
	for _, n := range controllerNames {
		i := slices.IndexFunc(controllers, func(c controller) bool { return c.name == n })
		if i < 0 {
			errs = append(errs, fmt.Errorf("%w %q (known: %s)", ErrUnknownController, n, strings.Join(Controllers(), ", ")))
			continue
		}
		if !slices.ContainsFunc(chosen, func(c controller) bool { return c.name == n }) {
			chosen = append(chosen, controllers[i])
		}
	}
	if err := errors.Join(errs...); err != nil {
		return actor.Actor{}, err
	}
	a := actor.Actor{Name: KubeControllerManagerName}
	var enabled []string
	for _, c := range controllers { // build order, whatever the order asked
		if !slices.ContainsFunc(chosen, func(x controller) bool { return x.name == c.name }) {
			continue
		}
		enabled = append(enabled, c.name)
		a.Takes = append(a.Takes, c.takes...)
		a.Collects = a.Collects || c.name == names.GarbageCollectorController
	}
	a.Doc = fmt.Sprintf("kube-controller-manager %s: %s in one ControllerContext (k8s.io/kubernetes/cmd/kube-controller-manager/app)",
		KubernetesVersion(), strings.Join(enabled, ", "))
	a.Run = func(ctx context.Context, env actor.Env) error { return run(ctx, env, enabled) }
	return a, nil
}

// run runs the controllers enabled (names of Controllers) in one
// kube-controller-manager on env until ctx ends (runKCM, no hooks).
func run(ctx context.Context, env actor.Env, enabled []string) error {
	return runKCM(ctx, env.Config, enabled, kcmHooks{})
}

// kcmHooks are what a run of a kube-controller-manager does beyond
// kube-controller-manager's own Run: a target's.
type kcmHooks struct {
	// gates are kube-controller-manager feature gates set while its
	// controllers are built (nil: the process's). The controllers read
	// them at construction only.
	gates map[string]bool
	// built, when set, is called once every controller is built, before
	// the informers start: a target wires its probe there.
	built func(k *kcm) error
}

// runKCM runs the controllers enabled in one kube-controller-manager on
// cfg until ctx ends. It does as kube-controller-manager's Run does
// without leader election. It builds the ControllerContext, and each
// controller with its descriptor's BuildController (under hooks.gates).
// It starts the informer factories, closes InformersStarted, and runs
// every controller. It returns once every controller, the RESTMapper's
// reset loop and the informers have returned. It builds in a fixed order
// (kube-controller-manager ranges over a map) and starts every
// controller at once (the default ControllerStartInterval is 0:
// RunControllers' jittered sleep is none).
func runKCM(ctx context.Context, cfg *rest.Config, enabled []string, hooks kcmHooks) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	k, err := newKCM(ctx, cfg, enabled)
	if err != nil {
		return err
	}
	built, err := buildControllers(ctx, k, enabled, hooks.gates)
	if err != nil {
		return err
	}
	if hooks.built != nil {
		if err := hooks.built(k); err != nil {
			return err
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { k.resetRESTMapper(ctx) })
	k.cc.InformerFactory.Start(ctx.Done())
	k.cc.ObjectOrMetadataInformerFactory.Start(ctx.Done())
	close(k.cc.InformersStarted)
	for _, c := range built {
		wg.Go(func() { c.Run(ctx) })
	}
	wg.Wait()
	k.shutdown()
	return nil
}

// buildControllers builds the controllers enabled on k's
// ControllerContext, with gates set while they are built (withGates).
func buildControllers(ctx context.Context, k *kcm, enabled []string, gates map[string]bool) ([]app.Controller, error) {
	var built []app.Controller
	err := withGates(gates, func() error {
		descriptors := app.NewControllerDescriptors()
		var errs []error
		for _, name := range enabled {
			d, ok := descriptors[name]
			if !ok {
				errs = append(errs, fmt.Errorf("%w %q: kube-controller-manager %s has no such controller", ErrUnknownController, name, KubernetesVersion()))
				continue
			}
			c, err := d.BuildController(ctx, k.cc)
			if err != nil {
				errs = append(errs, fmt.Errorf("building %s: %w", name, err))
				continue
			}
			if c != nil { // nil: disabled by a feature gate
				built = append(built, c)
			}
		}
		return errors.Join(errs...)
	})
	return built, err
}
