package replayer

import (
	"context"
	"net/http"
	"time"

	"github.com/lwreplay/lwreplay/history"
)

// WithStormDetection makes the server watch for request storms. Per
// resource, it counts the LIST, WATCH and WatchList requests that gained
// the client nothing. It reports a storm when more than limit of them end
// within window. A request gained nothing when, as it ended:
//   - the server's head for the resource had not moved forward since the
//     one before;
//   - no first complete listing had been served (see FirstListing);
//   - for a watch, no event past its initial state had been sent.
//
// Progress clears the count. A client re-watching at once after each
// clean close gains events; its single re-watch per stream end is no
// storm. Pages of a LIST after the first (continue tokens) count with it.
// GETs of one object are not counted. A window or limit that is not
// positive takes the default (DefaultStormWindow, DefaultStormLimit,
// which says why those). The server goes on answering: it only reports
// (Storm, Storms, WithStormHandler). Each request costs O(1).
func WithStormDetection(window time.Duration, limit int) Option {
	return func(o *options) { o.storm, o.stormWindow, o.stormLimit = true, window, limit }
}

// WithStormHandler has fn called once when a storm begins, with what the
// requests that revealed it were. It turns storm detection on with the
// default thresholds, unless WithStormDetection sets them. The handler
// runs on the goroutine of the request that revealed the storm, after its
// answer, and must return quickly.
func WithStormHandler(fn func(StormReport)) Option {
	return func(o *options) { o.storm, o.onStorm = true, fn }
}

// Storm returns the storm going on that began first; ok is false when no
// resource is storming (or detection is off).
func (s *Server) Storm() (rep StormReport, ok bool) {
	for _, r := range s.Storms() {
		if r.Ongoing {
			return r, true
		}
	}
	return StormReport{}, false
}

// Storms returns each resource's last storm, going on or over, in the order
// they began; nil when none was found (or detection is off).
func (s *Server) Storms() []StormReport {
	if s.storms == nil {
		return nil
	}
	return s.storms.storms(time.Now())
}

// stormKey is the request context key of a request's stormRequest.
type stormKey struct{}

// stormRequest is what one request did that storm detection counts. It
// is written only by the request's handler goroutine.
type stormRequest struct {
	kind       requestKind
	continued  bool
	initialEnd bool // the initial-events-end bookmark was sent
	live       bool // an event past the initial state was sent
}

// trackStorm starts accounting for a LIST or WATCH request for l's
// resource. It returns the request to serve, carrying the account, and
// the func to call when it has been answered. Without detection, or for
// an actor's request, it returns r and a no-op.
func (s *Server) trackStorm(r *http.Request, q history.RequestInfo, l *history.Log) (*http.Request, func()) {
	d := s.storms
	if d == nil || (q.Name != "" && !q.Watch) || byActor(r) {
		return r, func() {}
	}
	t := &stormRequest{kind: kindList, continued: q.Continue != ""}
	if q.Watch {
		t.kind = kindWatch
		if o, st := watchOptions(q); st == nil && o.SendInitialEvents != nil && *o.SendInitialEvents {
			t.kind = kindWatchList
		}
	}
	res := l.Resource
	r = r.WithContext(context.WithValue(r.Context(), stormKey{}, t))
	return r, func() {
		n := stormNote{at: time.Now(), kind: t.kind, continued: t.continued, live: t.live,
			early: t.kind == kindWatchList && !t.initialEnd}
		if cur, ok := s.store.log(res); ok { // a fault may have replaced the log
			n.head = s.store.head(cur)
		}
		_, n.listed = s.FirstListing(res)
		if rep, isNew := d.observe(res, n); isNew && s.opts.onStorm != nil {
			s.opts.onStorm(rep)
		}
	}
}

// noteFrame notes a frame a watch sent for storm detection: the
// initial-events-end bookmark, or an event past the initial state.
func (ws *watchStream) noteFrame(f outFrame) {
	t, ok := ws.ctx.Value(stormKey{}).(*stormRequest)
	if !ok {
		return
	}
	switch {
	case f.initialEnd:
		t.initialEnd = true
	case ws.fromRV != "" && (f.typ == history.Added || f.typ == history.Modified || f.typ == history.Deleted):
		t.live = true
	}
}
