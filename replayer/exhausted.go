package replayer

import "github.com/lwreplay/lwreplay/history"

// Exhausted reports whether every resource's history has been served to
// its end: some answer has reached every resource's last event.
func (s *Server) Exhausted() bool { return s.store.exhausted() }

// ExhaustedOf reports whether res's history has been served to its end
// (true for a resource the server does not have).
func (s *Server) ExhaustedOf(res history.Resource) bool { return s.store.exhaustedOf(res) }
