package harness

import (
	"sync"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/replayer"
)

// servingLog keeps what the replay served the target, and when, for the
// run's timeline (Observation.Servings).
type servingLog struct {
	start *time.Time // the run's start, set before the target's first request

	mu  sync.Mutex
	log []observe.Serving
}

// note logs one LIST page or watch frame the replay sent (a
// replayer.Hooks.OnServed).
func (s *servingLog) note(v replayer.Served) {
	at := time.Since(*s.start)
	s.mu.Lock()
	s.log = append(s.log, observe.Serving{At: at, Resource: v.Resource, Type: v.Type, RV: v.RV, Items: v.Items})
	s.mu.Unlock()
}

// servings returns what has been logged so far.
func (s *servingLog) servings() []observe.Serving {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]observe.Serving(nil), s.log...)
}
