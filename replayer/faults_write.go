package replayer

import (
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// writePoint reaches the decision point of a write of the target's to l,
// once the replay has answered it (stored or refused), and acts out the
// decision there, if any.
func (s *Server) writePoint(l *history.Log, key string) {
	if s.fx == nil {
		return
	}
	c := &pointCtx{s: s, pt: faults.Point{Kind: faults.WritePoint}, l: l, key: key}
	if act, ok := s.reach(c); ok {
		_ = act() // a write point's behaviours answer nothing and end no stream
	}
}

// crashAfterWrite crashes the target once its write has been answered
// (crash-after-write): the replay's WithTargetCrash function stops the
// instance that wrote and starts a fresh one. Without one it cannot act.
func crashAfterWrite(c *pointCtx, d faults.Decision) (func() error, bool) {
	if c.s.opts.crash == nil {
		return nil, false
	}
	return func() error {
		detail := "key " + c.key
		if c.key == "" {
			detail = "no key"
		}
		c.s.fire(c.pt, d.Fault, detail)
		c.s.opts.crash()
		return nil
	}, true
}
