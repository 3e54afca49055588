package oracle

import (
	"errors"
	"fmt"
	"time"
)

// ErrSpin is what no-spin reports: a goroutine of the run kept running
// while virtual time stood still, so the run could look no more.
var ErrSpin = errors.New("spin")

// Spin is a run given up because a goroutine of it never blocked: virtual
// time passes only once every goroutine of a synctest bubble is blocked,
// so one that loops without blocking (and without requests, which
// no-hot-loop would count) stops the run's clock, and the run ends only by
// giving up after a bound of real time.
type Spin struct {
	// At is the virtual time of the run's last look before it spun.
	At time.Duration
	// Stopping says the run had stopped the target (cancelled its context)
	// when it spun: the target spins on its way out.
	Stopping bool
	// After is the real time the run went without a look before it gave
	// up.
	After time.Duration
	// Stack holds the stacks of the run's goroutines that were running or
	// runnable when it gave up (the spinning ones); when Locked, those
	// waiting on a lock.
	Stack string
	// Locked says nothing of the run ran: goroutines waited on a lock
	// (sync.Mutex, sync.RWMutex) the same way twice a tick apart, which
	// keeps a synctest bubble from ever being idle — a deadlock, its clock
	// stopped as a spin stops it.
	Locked bool
}

// checkNoSpin fails when the run was given up spinning, with the
// spinning goroutines' stacks; the first frame of the target's among them
// is the site.
func checkNoSpin(o *Observation) error {
	if o == nil {
		return fmt.Errorf("%w: %w: nil observation", ErrSpin, ErrNoObservation)
	}
	if o.Spin == nil {
		return nil
	}
	when := "while it ran"
	if o.Spin.Stopping {
		when = "after the run stopped it (its context cancelled)"
	}
	if o.Spin.Locked {
		return withSite(fmt.Errorf("%w: the target's goroutines waited on a lock %s, at %v of virtual time, with none of them running "+
			"(a deadlock: a lock wait keeps virtual time still); it stood still for %v of real time, and the run was given up; "+
			"the goroutines waiting:\n%s", ErrSpin, when, o.Spin.At, o.Spin.After.Round(100*time.Millisecond), o.Spin.Stack), stackSite(o.Spin.Stack))
	}
	return withSite(fmt.Errorf("%w: a goroutine of the target kept running without blocking %s, at %v of virtual time: "+
		"virtual time stood still for %v of real time, and the run was given up; the goroutines running:\n%s",
		ErrSpin, when, o.Spin.At, o.Spin.After.Round(time.Second), o.Spin.Stack), stackSite(o.Spin.Stack))
}

// spinWhy says why a run given up spinning is judged by no-spin alone.
func spinWhy(o *Observation) string {
	return fmt.Sprintf("the run spun at %v of virtual time and was given up: what it observed stayed with its goroutines (no-spin judges it)", o.Spin.At)
}
