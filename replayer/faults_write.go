package replayer

import (
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// The faults that end the target's process: crash-after-write at a write
// point, graceful-restart at a request.

// writePoint reaches the decision point of a write to l, once the replay
// has answered it (stored or refused). It acts out the decision there, if
// any. The write is the target's, or, under WithFaultsOnActors, an
// actor's (byActor).
func (s *Server) writePoint(l *history.Log, key string, byActor bool) {
	if s.fx == nil {
		return
	}
	c := &pointCtx{s: s, pt: faults.Point{Kind: faults.WritePoint}, l: l, key: key, actor: byActor}
	if act, ok := s.fx.reach(c); ok {
		_ = act() // a write point's behaviours answer nothing and end no stream
	}
}

// crashAfterWrite crashes the target once its write has been answered
// (crash-after-write): the replay's Hooks.TargetCrash stops the
// instance that wrote and starts a fresh one. Without one it cannot act.
func crashAfterWrite(c *pointCtx, d faults.Decision) (func() error, bool) {
	if c.s.opts.hooks.TargetCrash == nil || c.actor {
		return nil, false
	}
	return func() error {
		detail := "key " + c.key
		if c.key == "" {
			detail = "no key"
		}
		c.s.fx.fire(c.pt, d.Fault, detail)
		c.s.opts.hooks.TargetCrash()
		return nil
	}, true
}

// stopTarget stops the target as a SIGTERM does when its LIST or WATCH
// arrives (graceful-restart). The replay's Hooks.TargetStop cancels the
// context of the instance that asked. It starts a fresh one once that has
// returned. A LIST is answered as usual. A WATCH gets a stream that ends
// at once, empty. How much of it the stopping instance would read before
// it leaves is a race between its goroutines. And what the stream sends
// moves the served head. So serving it would make the fresh instance's
// view (and the run's verdict) depend on the race, not on the input.
// Without a stop function it cannot act.
func stopTarget(c *pointCtx, d faults.Decision) (func() error, bool) {
	if c.s.opts.hooks.TargetStop == nil || c.actor || !c.s.opts.hooks.strikesAt(c.l.Resource) {
		return nil, false
	}
	return func() error {
		c.s.opts.hooks.TargetStop()
		if c.pt.Kind == faults.WatchPoint {
			c.s.fx.fire(c.pt, d.Fault, "the target's context cancelled, its watch ended empty")
			watchWriter(c.w, c.r, c.l.Resource).begin()
			return errAnswered
		}
		c.s.fx.fire(c.pt, d.Fault, "the target's context cancelled")
		return nil
	}, true
}
