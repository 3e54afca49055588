package replayer

// Exhausted reports whether every resource's history has been served to
// its end: some answer has reached every resource's last event.
func (s *Server) Exhausted() bool {
	for _, l := range s.served().Logs {
		if s.head(l) < l.End() {
			return false
		}
	}
	return true
}
