package harness

import (
	"context"
	"errors"
	"time"

	"k8s.io/client-go/util/workqueue"
)

// Target is client-go code a run drives against a replay.
type Target struct {
	// Name names the target ("informer").
	Name string
	// Doc says what the target is, in a sentence.
	Doc string
	// Run lists and watches env.Resource until ctx is done, through
	// env.ListerWatcher or env.Clientset (either level) or env.Config (wire
	// level only). It tells env.Probe of every handler notification and
	// registers its store and HasSynced there (Probe.AddEventHandler does
	// both). It returns once every goroutine it started has ended. It runs
	// inside the run's synctest bubble. So what it waits on must belong to
	// the run: channels and timers made inside it. A goroutine blocked on
	// something from outside, such as a channel made before the run or a real
	// socket, keeps the run from ending.
	Run func(ctx context.Context, env *Env) error
	// WatchListGate says the target's reflectors take their client path from
	// client-go's WatchListClient gate alone. They are clients built from
	// Env.Config that Env cannot opt out of WatchList: controller-runtime's
	// cache, a user's own informer factory. So the run sets that gate to its
	// path; runs of the other path wait for it, as runs of other Gates do.
	// Without it a LIST+WATCH run of such a target still asks for WatchList.
	WatchListGate bool
	// NoWatchList says the target never asks for a WatchList stream. It LISTs
	// and WATCHes by hand (a RetryWatcher's consumer, a pager). So its runs of
	// the WatchList path are those of the LIST path.
	NoWatchList bool
	// StoreOmits names the fields of the served objects the target's store
	// leaves out by design. Each is a dotted path of object keys, like
	// "metadata.managedFields" for an informer whose transform strips them,
	// as informer-transform's does. The run compares each stored object with
	// the truth's object without those fields, and one that still holds such
	// a field differs. Every other field is compared as for any target.
	// Nil: stored objects are compared whole.
	StoreOmits []string
	// Container says the target runs as a Pod's container, as an operator
	// does in a Deployment's pod. Its Run returning an error while the run
	// goes on is the process exiting. The kubelet then restarts it, cold,
	// after a backoff: 10 s, doubling at each exit, at most 5 minutes
	// (CrashLoopBackOff; k8s.io/kubernetes pkg/kubelet/kubelet.go,
	// backOffPeriod and MaxContainerBackOff). The run does the same
	// (Observation.Exits). Without it, such a Run's error is the run's end
	// for the target, judged as it is.
	Container bool
	// RetryBound is the longest the target holds back a retry of work that
	// failed. controller-runtime's default rate limiter backs a failing key
	// off to 1000 s, past the 15-minute watchdog. A run that reaches its
	// watchdog (or the live bound after its last fault) goes on, at most
	// RetryBound past that end: until just past the retry the target says is
	// due (Probe.SetRetryDue; crtarget's, from its failed reconciles), or,
	// without one, until RetryBound has passed since its last write. So the
	// end state is judged after the retry, not during its backoff. Zero: the
	// run ends there.
	RetryBound time.Duration
}

// ControllerRetryBound is the longest a controller built on client-go's
// workqueue holds back the retry of a key whose work failed, and a second:
// the most DefaultTypedControllerRateLimiter waits (1000 s).
// controller-runtime gives that limiter to a controller whose options set
// no RateLimiter; kube-controller-manager's controllers build their queues
// on it. It is a Target.RetryBound for such targets.
var ControllerRetryBound = maxDelay(workqueue.DefaultTypedControllerRateLimiter[string]()) + time.Second

// maxDelay is the longest rl holds an item back: its delay after many
// failures of one item.
func maxDelay(rl workqueue.TypedRateLimiter[string]) time.Duration {
	var d time.Duration
	for range 64 {
		d = max(d, rl.When("item"))
	}
	return d
}

// containerBackoff is how long the kubelet waits to restart a container
// that exited n times before: 10 s, doubling, at most 5 minutes. It does
// not model the kubelet forgetting the backoff after a container ran 10
// minutes (a run's restarts come within its watchdog).
func containerBackoff(n int) time.Duration {
	d := 10 * time.Second
	for range n {
		d *= 2
		if d >= 5*time.Minute {
			return 5 * time.Minute
		}
	}
	return d
}

// ErrTarget is returned when a target cannot be set up.
var ErrTarget = errors.New("target setup failed")
