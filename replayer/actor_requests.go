package replayer

import (
	"context"
	"net/http"

	"github.com/lwreplay/lwreplay/actor"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/internal/inproc"
)

// The other actors' requests. The cluster's own controllers run beside
// the target against the same replay (package actor:
// kube-controller-manager's, a scheduler, a kubelet stand-in). Each runs
// through a transport of its own (TransportAs). Their requests are
// answered as the target's are. A write is placed in the served history
// by the same kube-apiserver rules, at the same resourceVersions. But
// they are not the target's:
//
//   - an actor's write comes From history.ActorWrite(name), not
//     history.TargetWrite; the target's write log (Writes) does not hold
//     it and no write point numbers it;
//   - its LISTs and WATCHes complete no listing (FirstListing), count
//     toward no storm and are not reported to Hooks.OnServed;
//   - a fault plan does not act on its requests, nor number them, unless
//     WithFaultsOnActors says so.
//
// The mark travels in the request's context, which only code in the
// replay's process can set: a client over HTTP is always the target.

// actorKey is the request context key of the name of the actor whose
// request it is.
type actorKey struct{}

// TransportAs returns Transport's in-process http.RoundTripper for the
// actor name. Every request made through it is that actor's, with the
// same latency as the target's (see the other actors' requests above).
// An empty name is the target's Transport.
func (s *Server) TransportAs(name string) http.RoundTripper {
	t := inproc.New(s, s.opts.latency)
	if name == "" {
		return t
	}
	return actorTransport{name: name, rt: t}
}

// actorTransport marks each request as its actor's before handing it on.
type actorTransport struct {
	name string
	rt   http.RoundTripper
}

// RoundTrip answers req as the transport's actor's request.
func (t actorTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	return t.rt.RoundTrip(req.WithContext(context.WithValue(req.Context(), actorKey{}, t.name)))
}

// actorOf returns the name of the actor whose request ctx is ("" for the
// target's).
func actorOf(ctx context.Context) string {
	name, _ := ctx.Value(actorKey{}).(string)
	return name
}

// byActor reports whether r is an actor's request.
func byActor(r *http.Request) bool { return actorOf(r.Context()) != "" }

// WithFaultsOnActors makes the fault plan act on the actors' requests as
// on the target's. They reach decision points, numbered with the
// target's, per resource, and a fault may strike them. A crashed or
// partitioned kube-controller-manager is stale state for the operator:
// its pods stop moving while the operator reads them. Faults that end
// the target's process (crash-after-write, graceful-restart) still act
// only at the target's requests. Off by default: a plan strikes the
// target alone.
func WithFaultsOnActors(on bool) Option { return func(o *options) { o.faultsOnActors = on } }

// WithoutGC turns the replay's own garbage-collector model (see
// Collected) off: a run whose actors include the cluster's garbage
// collector leaves the collecting to it.
func WithoutGC() Option { return func(o *options) { o.noGC = true } }

// WithGracefulDeletion makes a pod's DELETE graceful, as kube-apiserver
// makes it. A scheduled pod that has not terminated is kept with a
// deletionTimestamp at the end of its grace period (a MODIFIED event). It
// stays until its kubelet deletes it with grace 0. A second DELETE only
// shortens the grace (replayer/writes graceful.go). It is for a run whose
// actors include a kubelet. Off by default: a pod is deleted at once, as
// though its kubelet confirmed at once. So no pod stays terminating in a
// replay where nothing finishes it.
func WithGracefulDeletion() Option { return func(o *options) { o.graceful = true } }

// faultsAt reports whether the fault plan acts at r: the target's
// request, or an actor's under WithFaultsOnActors.
func (o *options) faultsAt(r *http.Request) bool {
	return o.faultsOnActors || !byActor(r)
}

// writerOf is the history.Location File of the events r's writes make.
func writerOf(r *http.Request) string {
	if name := actorOf(r.Context()); name != "" {
		return history.ActorWrite(name)
	}
	return targetFrom
}

// WithDefaulter makes every write of a built-in kind defaulted by d. That
// is what kube-apiserver's decoder does to a request's body, with the
// kind's SetDefaults funcs (a StatefulSet's updateStrategy, a pod's
// restartPolicy). The cluster's controllers rely on those fields. The
// main module holds no defaulting funcs (they live in k8s.io/kubernetes);
// the actors module supplies them. Off by default: bodies are stored as
// sent, defaulted only as their Go type decodes them.
func WithDefaulter(d runtime.ObjectDefaulter) Option { return func(o *options) { o.defaulter = d } }

// ForActors returns the options a replay needs for the actors as:
//   - no garbage-collector model when one of them collects (WithoutGC);
//   - pods' graceful deletion when one is a kubelet (WithGracefulDeletion);
//   - kube-apiserver's defaulting when one supplies it (WithDefaulter).
//
// The fuzz harness and lwreplay serve --actors both use it.
func ForActors(as []actor.Actor) []Option {
	var out []Option
	if d := actor.Defaulter(as); d != nil {
		out = append(out, WithDefaulter(d))
	}
	if actor.Collects(as) {
		out = append(out, WithoutGC())
	}
	if actor.Kubelets(as) {
		out = append(out, WithGracefulDeletion())
	}
	return out
}
