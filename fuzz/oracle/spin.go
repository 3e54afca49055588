package oracle

import (
	"errors"
	"fmt"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
)

// ErrSpin is what no-spin reports: a goroutine of the run kept running
// while virtual time stood still, so the run could look no more.
var ErrSpin = errors.New("spin")

// checkNoSpin fails when the run was given up spinning, with the
// spinning goroutines' stacks; the first frame of the target's among them
// is the site.
func checkNoSpin(o *observe.Observation) error {
	if o == nil {
		return fmt.Errorf("%w: %w: nil observation", ErrSpin, ErrNoObservation)
	}
	if o.Spin == nil || (o.Spin.Locked && o.Spin.OnTime) {
		return nil // no spin, or no deadlock of the target's (spinWhy)
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
	if o.Spin.Known != "" {
		return withSite(fmt.Errorf("%w: a goroutine of the target kept running without blocking %s, at %v of virtual time, "+
			"in the known busy loop at %s: virtual time stood still for %v of real time, and the run was given up then; "+
			"the goroutines running:\n%s", ErrSpin, when, o.Spin.At, o.Spin.Known, o.Spin.After.Round(10*time.Millisecond), o.Spin.Stack), stackSite(o.Spin.Stack))
	}
	return withSite(fmt.Errorf("%w: a goroutine of the target kept running without blocking %s, at %v of virtual time: "+
		"virtual time stood still for %v of real time, and the run was given up; the goroutines running:\n%s",
		ErrSpin, when, o.Spin.At, o.Spin.After.Round(time.Second), o.Spin.Stack), stackSite(o.Spin.Stack))
}

// spinWhy says why a run given up spinning is judged by no-spin alone.
func spinWhy(o *observe.Observation) string {
	if o.Spin.Locked && o.Spin.OnTime {
		return fmt.Sprintf("the run stalled at %v of virtual time and was given up: a goroutine waited on a lock while another "+
			"waited on virtual time (its holder, in real time, goes on), and a lock wait keeps a synctest bubble's clock still", o.Spin.At)
	}
	return fmt.Sprintf("the run spun at %v of virtual time and was given up: what it observed stayed with its goroutines (no-spin judges it)", o.Spin.At)
}
