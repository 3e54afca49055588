// Package actor names the cluster's own controllers a run can start
// beside its target: kube-controller-manager's controllers, a scheduler,
// a kubelet stand-in, a volume provisioner. An Actor is data: a name, a
// doc line, what it takes over from a recording, and how it runs. The
// name is the CLI value, report key and subtest name. The actors
// themselves live in the module github.com/lwreplay/lwreplay/actors. It
// requires k8s.io/kubernetes, so it is a module of its own: a
// client-go-only user does not get it. This package holds only what the
// harness, the replayer and the CLI need to run them.
//
// An actor reaches the replay through its own transport
// (replayer.Server.TransportAs). Its writes are the cluster's: in the
// served history every invariant reads, never in the target's write log.
// A fault plan strikes it only when asked (replayer.WithFaultsOnActors).
package actor

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// ErrUnknown says an actor name is not in the registry asked.
var ErrUnknown = errors.New("unknown actor")

// Env is what an actor gets to run against one replay.
type Env struct {
	// Config reaches the replay as this actor (its User-Agent names it):
	// every request it makes is the actor's.
	Config *rest.Config
}

// Takeover names recorded objects an actor makes and keeps itself: those
// of Resource whose controller (the ownerReference marked controller) is
// of one of the ControllerKinds. A run with the actor serves their
// initial state as recorded, and drops their later recorded changes. So
// no object is both replayed and made (history.Takeover).
type Takeover struct {
	// Resource is what the actor makes (pods, controllerrevisions).
	Resource schema.GroupResource
	// ControllerKinds are the kinds whose objects own what it makes
	// (apps/StatefulSet); empty means every object of Resource.
	ControllerKinds []schema.GroupKind
}

// Actor is one of the cluster's own controllers a run can start.
type Actor struct {
	// Name is the actor's name: "statefulset", "kubelet".
	Name string
	// Doc says in one line what it does and where its code comes from.
	Doc string
	// Takes are the recorded objects it takes over.
	Takes []Takeover
	// Collects says it is a garbage collector: the replay's own model of
	// one (replayer.WithoutGC) is off while it runs.
	Collects bool
	// Kubelet says it finishes pods' graceful deletion, as a kubelet
	// does. The replay then keeps a deleted pod that runs on a node until
	// its grace period is over (replayer.WithGracefulDeletion).
	Kubelet bool
	// Defaults, when set, is kube-apiserver's defaulting of built-in
	// kinds, which the actor's controllers rely on: the replay defaults
	// every write with it (replayer.WithDefaulter).
	Defaults runtime.ObjectDefaulter
	// Run runs the actor until ctx ends, and returns once every goroutine
	// it started has returned. It returns an error only when it cannot
	// start.
	Run func(ctx context.Context, env Env) error
}

// String returns the actor's name.
func (a Actor) String() string { return a.Name }

// Registry is a set of actors and the groups that name several at once
// ("kube-controller-manager"), looked up by name.
type Registry struct {
	// Actors are the actors, in the order they start.
	Actors []Actor
	// Groups name lists of actors: a group's name stands for them.
	Groups map[string][]string
}

// Names returns every name Lookup takes: the actors' and the groups',
// sorted.
func (r Registry) Names() []string {
	var out []string
	for _, a := range r.Actors {
		out = append(out, a.Name)
	}
	for g := range r.Groups {
		out = append(out, g)
	}
	slices.Sort(out)
	return out
}

// Lookup returns the actors names name, each once, in registry order; a
// group's name stands for its actors. An unknown name is ErrUnknown,
// with the names known.
func (r Registry) Lookup(names ...string) ([]Actor, error) {
	want := map[string]bool{}
	var errs []error
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if members, ok := r.Groups[n]; ok {
			for _, m := range members {
				want[m] = true
			}
			continue
		}
		if !slices.ContainsFunc(r.Actors, func(a Actor) bool { return a.Name == n }) {
			errs = append(errs, fmt.Errorf("%w %q (known: %s)", ErrUnknown, n, strings.Join(r.Names(), ", ")))
			continue
		}
		want[n] = true
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	var out []Actor
	for _, a := range r.Actors {
		if want[a.Name] {
			out = append(out, a)
		}
	}
	return out, nil
}

// Collects reports whether one of actors is a garbage collector.
func Collects(actors []Actor) bool {
	return slices.ContainsFunc(actors, func(a Actor) bool { return a.Collects })
}

// Kubelets reports whether one of actors finishes pods' graceful
// deletion.
func Kubelets(actors []Actor) bool {
	return slices.ContainsFunc(actors, func(a Actor) bool { return a.Kubelet })
}

// Defaulter returns the first Defaults of actors (nil: none).
func Defaulter(actors []Actor) runtime.ObjectDefaulter {
	for _, a := range actors {
		if a.Defaults != nil {
			return a.Defaults
		}
	}
	return nil
}

// UserAgent is the User-Agent of an actor's requests, as
// kube-controller-manager's controllers send theirs.
func UserAgent(name string) string { return "lwreplay-actor/" + name }
