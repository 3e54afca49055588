package crtarget

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// Reconciles is what the reconciles of a manager's controllers ended in,
// per controller and request, as the manager logged them.
// controller-runtime logs (pkg/internal/controller, reconcileHandler, in
// v0.23 to v0.25):
//   - "Reconciler error" (at error level) for a reconcile that returned an
//     error;
//   - "Reconcile successful" or "Reconcile done, requeueing" (at V(5)) for
//     one that did not.
//
// NewManager's manager logs through a sink that tells it each, and passes
// on what its own logger enables. The manager exposes it
// (fuzz.Observation.Exposed). It holds the run open while a key's last
// reconcile failed, for its next retries (settleAfter). It is safe for
// concurrent use.
type Reconciles struct {
	elapsed func() time.Duration

	mu        sync.Mutex
	keys      map[string]*outcomes
	unsettled int           // keys whose last reconcile failed, fewer than settleAfter in a row
	stoppedAt time.Duration // when the manager was told to stop; -1: not yet
}

// outcomes is one key's reconciles: when its last one changed from
// succeeding to failing or back, and how many failed.
type outcomes struct {
	changes  []change
	failures int
	inRow    int           // failures since its last success
	lastAt   time.Duration // when its last reconcile ended
}

// settleAfter is how many failed reconciles of a key in a row end its
// claim to hold a run open. With controller-runtime's default backoff
// (5 ms, doubled each retry) the twelfth comes some 10 s after the first.
// A fault a retry waits out has ended by then, and a key still failing
// keeps failing. Without the bound, such a key kept every run going to
// the watchdog.
const settleAfter = 12

// change is a reconcile that ended otherwise than the one before it.
type change struct {
	at     time.Duration
	failed bool
	err    string // the error, when failed
}

// ReconcileFailure is a key whose last reconcile before the manager was
// told to stop failed.
type ReconcileFailure struct {
	// Controller names the controller.
	Controller string
	// Key is the request's namespace/name (name alone when cluster-scoped).
	Key string
	// Since is when its reconciles started failing, in virtual time since
	// the run started.
	Since time.Duration
	// Failures counts its failed reconciles in the run.
	Failures int
	// Err is the error its last failing stretch started with.
	Err string
}

// newReconciles returns an empty record, timed by elapsed.
func newReconciles(elapsed func() time.Duration) *Reconciles {
	return &Reconciles{elapsed: elapsed, keys: map[string]*outcomes{}, stoppedAt: -1}
}

// record notes that controller's reconcile of key ended in err (nil: it
// succeeded). A TerminalError is not retried (reconcile.Reconciler: "The
// only exception is if the error is a TerminalError in which case no
// requeuing happens"). The reconciler gave up on purpose. So it counts as
// no failure that a retry still waits on.
func (r *Reconciles) record(controller, key string, err error) {
	failed := err != nil && !errors.Is(err, reconcile.TerminalError(nil))
	at := r.elapsed()
	r.mu.Lock()
	defer r.mu.Unlock()
	k := controller + " " + key
	o := r.keys[k]
	if o == nil {
		o = &outcomes{}
		r.keys[k] = o
	}
	o.lastAt = at
	if failed {
		o.failures++
		o.inRow++
		switch o.inRow {
		case 1:
			r.unsettled++
		case settleAfter:
			r.unsettled--
		}
	} else {
		if o.inRow > 0 && o.inRow < settleAfter {
			r.unsettled--
		}
		o.inRow = 0
	}
	last := len(o.changes) > 0 && o.changes[len(o.changes)-1].failed
	if len(o.changes) > 0 && last == failed {
		return
	}
	c := change{at: at, failed: failed}
	if failed {
		c.err = err.Error()
	}
	o.changes = append(o.changes, c)
}

// stop notes that the manager was told to stop. Reconciles that end from
// then on (a reconcile whose context the stop cancelled) are the stop's,
// not the run's.
func (r *Reconciles) stop() {
	at := r.elapsed()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stoppedAt < 0 {
		r.stoppedAt = at
	}
}

// settled reports whether every key whose last reconcile failed has failed
// settleAfter times in a row. A run ends early only then, so that a key
// retried with backoff gets its retries before the run judges it.
func (r *Reconciles) settled() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.unsettled == 0
}

// retryDue returns when the next retry of a key whose last reconcile
// failed is due, the latest of them (virtual time since the run started);
// false when none is pending. controller-runtime requeues a failed key
// through its rate limiter, client-go's default unless the controller's
// options name another: 5 ms doubled at each failure in a row, at most
// 1000 s (retryDelay).
func (r *Reconciles) retryDue() (time.Duration, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stoppedAt >= 0 {
		return 0, false
	}
	var due time.Duration
	pending := false
	for _, o := range r.keys {
		if o.inRow > 0 {
			due, pending = max(due, o.lastAt+retryDelay(o.inRow)), true
		}
	}
	return due, pending
}

// retryDelay is how long client-go's default controller rate limiter holds
// a key back after its n-th failure in a row (n ≥ 1).
func retryDelay(n int) time.Duration {
	d := retryDelays()
	return d[min(n, len(d))-1]
}

// retryDelays are the default controller rate limiter's delays after a
// key's 1st to 64th failure in a row, asked of it once: a run reads them at
// every look.
var retryDelays = sync.OnceValue(func() []time.Duration {
	rl := workqueue.DefaultTypedControllerRateLimiter[string]()
	out := make([]time.Duration, 64)
	for i := range out {
		out[i] = rl.When("key")
	}
	return out
})

// Failing returns the keys whose last reconcile before the manager was
// told to stop failed, by controller and key. Reconciles that ended at
// the instant of the stop or later do not count: at that instant a retry
// and the stop race.
func (r *Reconciles) Failing() []ReconcileFailure {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []ReconcileFailure
	for k, o := range r.keys {
		var last *change
		for i := range o.changes {
			if r.stoppedAt >= 0 && o.changes[i].at >= r.stoppedAt {
				break
			}
			last = &o.changes[i]
		}
		if last == nil || !last.failed {
			continue
		}
		controller, key, _ := strings.Cut(k, " ")
		out = append(out, ReconcileFailure{Controller: controller, Key: key, Since: last.at, Failures: o.failures, Err: last.err})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Controller != out[j].Controller {
			return out[i].Controller < out[j].Controller
		}
		return out[i].Key < out[j].Key
	})
	return out
}

// String describes f in a line.
func (f ReconcileFailure) String() string {
	return fmt.Sprintf("controller %q, %s: failing since %v (%d failed reconciles in the run): %s", f.Controller, f.Key, f.Since, f.Failures, f.Err)
}

// stopWatch is a runnable of the manager that tells rec when the manager
// stops. It needs no leader election, so it runs in the manager's first
// group to stop: it is told before any controller's context is cancelled.
type stopWatch struct{ rec *Reconciles }

// Start waits for the manager to stop.
func (s stopWatch) Start(ctx context.Context) error {
	<-ctx.Done()
	s.rec.stop()
	return nil
}

// NeedLeaderElection is false: the watch runs on every replica.
func (stopWatch) NeedLeaderElection() bool { return false }
