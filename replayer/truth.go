package replayer

import (
	"github.com/lwreplay/lwreplay/history"
)

// The served history (the truth) changes under a fault that changes the
// history (recreate, opaque-rv) and with each write the target makes. It
// is the fault run's truth under a plan, else the history with the
// writes; changes of it are made one at a time (lockTruth), and every log
// pointer the server keys state by (heads, reached) follows the change.

// lockTruth locks the served history for a change and returns the unlock.
func (s *Server) lockTruth() (unlock func()) {
	if s.fx != nil {
		s.fx.mu.Lock()
		return s.fx.mu.Unlock
	}
	s.writeMu.Lock()
	return s.writeMu.Unlock
}

// truthLocked returns the served history; the caller holds lockTruth.
func (s *Server) truthLocked() *history.History {
	if s.fx != nil {
		return s.fx.truth
	}
	if w := s.written.Load(); w != nil {
		return w
	}
	return s.h
}

// setTruthLocked makes next, a change of old, the served history: the
// head and paced position of each log of old carry over to next's log at
// the same index, moved as shift moves positions of that log (nil: they
// stay), and the compaction points move as moveRV moves their RVs (nil:
// they stay); open watches are told. The caller holds lockTruth.
func (s *Server) setTruthLocked(old, next *history.History, shift func(i, pos int) int, moveRV func(string) string) {
	if shift == nil {
		shift = func(_, pos int) int { return pos }
	}
	s.mu.Lock()
	for i, ol := range old.Logs {
		if i >= len(next.Logs) {
			break
		}
		nl := next.Logs[i]
		s.heads[nl] = max(s.heads[nl], shift(i, s.heads[ol]))
		s.reached[nl] = max(s.reached[nl], shift(i, s.reached[ol]))
	}
	for id, f := range s.floors {
		if moveRV != nil {
			s.floors[id] = moveRV(f)
		}
	}
	s.mu.Unlock()
	if s.fx != nil {
		s.fx.truth = next
	} else {
		s.written.Store(next)
	}
	fresh := make(chan struct{})
	close(*s.changed.Swap(&fresh))
}

// truthChanged returns a channel closed when the served history next
// changes by a write.
func (s *Server) truthChanged() <-chan struct{} {
	return *s.changed.Load()
}

// logNow returns the served log of l's resource now: l itself unless a
// write changed it.
func (s *Server) logNow(l *history.Log) *history.Log {
	if nl, ok := s.served().Log(l.Resource); ok {
		return nl
	}
	return l
}
