package replayer

import "github.com/lwreplay/lwreplay/history"

// Hooks are the replay's calls into the run that drives it. They say how
// it crashes and stops the target, which resource its run-wide faults
// strike, and whom it tells what it served. Every field is optional.
type Hooks struct {
	// TargetCrash crashes the target when a fault says so
	// (crash-after-write). It is called once the struck write has been
	// answered, before the answer is returned. It must stop the instance
	// that sent the write at once and start a fresh one. The answer and
	// every later request of that instance are lost, as when a process
	// dies. Nil: crash-after-write does not act.
	TargetCrash func()

	// TargetStop stops the target when a fault says so (graceful-restart).
	// It is called when the struck LIST or WATCH arrives, before it is
	// answered. It must cancel the context of the instance that sent it,
	// as a SIGTERM does, and start a fresh one once that has returned.
	// The request is answered as usual. Nil: graceful-restart does not act.
	TargetStop func()

	// RunResource names the one resource whose requests the run-wide
	// faults strike. They are graceful-restart (a stop stops all of the
	// target) and recreate (its rewrite moves every later RV). Points are
	// numbered per resource, and a target sends its N-th request of each
	// resource in an order its goroutines choose. Only one resource's
	// points keep such a run a function of its input. Nil: any resource.
	RunResource *history.Resource

	// OnServed is called with each LIST page and watch frame the server
	// sent, on the sending goroutine, right after it was written. A GET of
	// one object is not reported, nor an actor's answer. It must return
	// quickly and not change what it is given. Nil: nothing is told.
	OnServed func(Served)
}

// WithHooks sets the replay's hooks (see Hooks), replacing any set before.
func WithHooks(h Hooks) Option { return func(o *options) { o.hooks = h } }

// WithTargetCrash sets Hooks.TargetCrash.
//
// Deprecated: use WithHooks.
func WithTargetCrash(crash func()) Option { return func(o *options) { o.hooks.TargetCrash = crash } }

// WithTargetStop sets Hooks.TargetStop.
//
// Deprecated: use WithHooks.
func WithTargetStop(stop func()) Option { return func(o *options) { o.hooks.TargetStop = stop } }

// WithRunResource sets Hooks.RunResource to res.
//
// Deprecated: use WithHooks.
func WithRunResource(res history.Resource) Option {
	return func(o *options) { o.hooks.RunResource = &res }
}

// WithServedHandler sets Hooks.OnServed.
//
// Deprecated: use WithHooks.
func WithServedHandler(fn func(Served)) Option { return func(o *options) { o.hooks.OnServed = fn } }

// strikesAt reports whether the run-wide faults act at the requests of
// res (see Hooks.RunResource).
func (h Hooks) strikesAt(res history.Resource) bool {
	return h.RunResource == nil || *h.RunResource == res
}
