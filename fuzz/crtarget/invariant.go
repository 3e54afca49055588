package crtarget

import (
	"errors"
	"fmt"
	"strings"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// ErrReconcileFailing says a key's last reconcile failed. The controller
// retries it with backoff for ever, and the run's end state is not one its
// reconciler accepts.
var ErrReconcileFailing = errors.New("reconcile keeps failing")

// LastReconcileSucceeded is the invariant that no key's last reconcile
// before the manager stopped failed. A TerminalError, never retried, is no
// failure. A reconciler may return an error for a state it will meet
// again on every retry, such as the NotFound of a deleted object. That
// keeps the key in backoff for ever, and no other invariant sees it.
// It judges the Reconciles NewManager exposes. A target that exposes
// something else instead (Probe.Expose) is not judged. A run holds open
// while a key fails (Reconciles), so that a failure a retry would mend is
// mended before the run judges it. Its name is "last-reconcile-succeeded".
var LastReconcileSucceeded = lastReconcileSucceeded()

// lastReconcileSucceeded builds LastReconcileSucceeded.
func lastReconcileSucceeded() fuzz.Invariant {
	inv := fuzz.NewInvariant("last-reconcile-succeeded",
		"no key of a controller-runtime manager's controllers ends the run with its last reconcile failed (retried with backoff, for ever)",
		func(_ *history.Log, o *fuzz.Observation) error {
			rec, ok := o.Exposed.(*Reconciles)
			if !ok {
				return fmt.Errorf("%w: the target exposed no *crtarget.Reconciles (got %T): not a crtarget manager", fuzz.ErrNotJudged, o.Exposed)
			}
			failing := rec.Failing()
			if len(failing) == 0 {
				return nil
			}
			lines := make([]string, len(failing))
			for i, f := range failing {
				lines[i] = f.String()
			}
			return fmt.Errorf("%w: %d key(s) whose last reconcile failed:\n%s", ErrReconcileFailing, len(failing), strings.Join(lines, "\n"))
		})
	inv.Guarantee = `controller-runtime, reconcile.Reconciler: "If the returned error is non-nil, the Result is ignored and the request will be requeued using exponential backoff. The only exception is if the error is a TerminalError in which case no requeuing happens."`
	return inv
}

// Invariants returns crtarget's invariants, for fuzz.Options.Extra (a
// manager's fuzz test adds them with Extra: crtarget.Invariants()):
// LastReconcileSucceeded.
func Invariants() []fuzz.Invariant { return []fuzz.Invariant{LastReconcileSucceeded} }
