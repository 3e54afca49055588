package observe

import "time"

// Spin is a run given up because a goroutine of it never blocked. Virtual
// time passes only once every goroutine of a synctest bubble is blocked.
// So one that loops without blocking (and without requests, which
// no-hot-loop would count) stops the run's clock. The run ends only by
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
	// runnable when it gave up (the spinning ones). When Locked, it holds those
	// waiting on a lock.
	Stack string
	// Locked says nothing of the run ran. Goroutines waited on a lock
	// (sync.Mutex, sync.RWMutex) the same way twice a tick apart. That keeps a
	// synctest bubble from ever being idle: a deadlock, its clock stopped as a
	// spin stops it.
	Locked bool
	// OnTime says that, Locked, a goroutine of the run waited on virtual
	// time too: a request's latency in the replay, or a sleep. The lock's
	// holder may be that one. In real time it goes on and lets go of the
	// lock; in a synctest bubble the lock wait keeps the clock still, so
	// it never does. That is no deadlock of the target's, and the run is
	// judged nothing.
	OnTime bool
	// Known, when set, is the site of a known busy loop or deadlock
	// (harness Spec.KnownSpins) the stopped run was seen in twice. It was
	// given up then, sooner than the spin bound: the verdict is the same.
	Known string
}
