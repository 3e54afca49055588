package actors

import "github.com/lwreplay/lwreplay/actor"

// Registry returns the actors of this module, in the order they start.
// First is the kube-controller-manager of every controller of
// Controllers (named KubeControllerManagerName). Then comes each
// controller alone: a kube-controller-manager of its own
// (--controllers=<name>).
//
// kube-controller-manager is one actor, not a group of the controllers'
// actors. Its controllers share one ControllerContext and informer
// factory. Separately started actors could share those only through
// state keyed by their run. (Each actor reaches the replay with a
// rest.Config of its own, so no pointer they get names the run.) And
// InformersStarted closes once every controller is built. An actor
// cannot know that of the others chosen with it. Name either the
// kube-controller-manager or some of its controllers, not both: a
// controller run twice is two writers fighting over the same objects.
// The node actors (NodeActors) follow. The group ClusterGroup names the
// kube-controller-manager and the node actors: a cluster in the bubble.
// Every actor carries Defaults: the replay defaults writes as
// kube-apiserver does, which the controllers rely on.
func Registry() actor.Registry {
	all, _ := KubeControllerManager() // every name is known
	r := actor.Registry{Actors: []actor.Actor{all}, Groups: map[string][]string{ClusterGroup: {all.Name}}}
	for _, c := range controllers {
		r.Actors = append(r.Actors, controllerActor(c))
	}
	for _, a := range NodeActors() {
		r.Actors = append(r.Actors, a)
		r.Groups[ClusterGroup] = append(r.Groups[ClusterGroup], a.Name)
	}
	for i := range r.Actors {
		r.Actors[i].Defaults = Defaults()
	}
	return r
}

// ClusterGroup names the kube-controller-manager, the scheduler, the
// kubelet and the volume provisioner at once.
const ClusterGroup = "cluster"
