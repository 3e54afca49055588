package replayer

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
)

// preTimeoutBookmark is how long before a watch's timeout the cacher sends
// its last bookmark.
const preTimeoutBookmark = 2 * time.Second

// serveWatch answers a WATCH, as kube-apiserver 1.37's watch cache does.
//
// A watch from resourceVersion "" or "0" that does not say
// sendInitialEvents is defaulted to sendInitialEvents=true.
// kube-apiserver does the same while its WatchList feature is on. The
// watch then sends ADDED for every selected object of the state at the
// server's head, sorted by key. (The head is never older than the
// compaction point.) Then, when bookmarks are allowed, it sends the
// initial-events-end bookmark, then every event after it. With
// sendInitialEvents=false it sends the events after the head only.
//
// A watch from another resourceVersion R sends every event after R, in
// order. R older than the compaction point gets HTTP 200 and one ERROR
// event, 410 Expired "too old resource version: R (compaction)". R newer
// than anything the history holds is accepted, as the cacher accepts it.
// The cacher sends only events newer than R, and none ever comes. So the
// stream stays silent until its timeout; no bookmark carries an RV older
// than R. An R the history cannot place is a 400.
func (s *Server) serveWatch(w http.ResponseWriter, r *http.Request, q history.RequestInfo, l *history.Log) {
	if !acceptable(r, l.Resource) {
		status.Write(w, notAcceptable())
		return
	}
	f, err := newFilter(q)
	if err != nil {
		status.Write(w, badRequest(err.Error()))
		return
	}
	opts, st := watchOptions(q)
	if st != nil {
		status.Write(w, *st)
		return
	}
	initial := opts.SendInitialEvents != nil && *opts.SendInitialEvents
	// the target asked for a watch: it acts on a cache, even when a fault
	// refuses every watch it asks for (history.WriteAnswer.Unserved)
	s.store.watching(l)
	wf, answered := s.watchPoint(w, r, q, l, initial)
	if answered {
		return
	}
	if initial && wf != nil && wf.plain {
		// a server that does not know sendInitialEvents. From "" or "0" it
		// sends the state as ADDED events with no initial-events-end
		// bookmark (an older watch's "start at most recent" or "at any").
		// From another resourceVersion it is a watch from it.
		if rv := q.ResourceVersion; rv == "" || rv == "0" {
			s.serveInitialEvents(w, r, l, f, false, q, wf)
			return
		}
		initial = false
	}
	if initial {
		s.serveInitialEvents(w, r, l, f, opts.AllowWatchBookmarks, q, wf)
		return
	}
	ws := s.newWatchStream(w, r, l, f, q)
	ws.wf = wf
	defer ws.stop()
	rv := q.ResourceVersion
	if rv == "" || rv == "0" {
		// sendInitialEvents=false: from now, with no initial state
		ws.pos = s.store.newestPosition(l)
		ws.fromRV = s.store.happenedRV(l, ws.pos)
		ws.fw.begin()
		ws.run()
		return
	}
	pos, err := l.Position(rv)
	floor := s.store.watchFloor(l)
	if cs := s.restart.cacheStart(l.Resource); cs != "" && l.Order().Less(floor, cs) {
		floor = cs // a restarted server's watch cache starts there (apiserver-restart)
	}
	switch {
	case errors.Is(err, history.ErrUnknownRV):
		status.Write(w, invalidRV(l, rv))
		return
	case errors.Is(err, history.ErrTooOld) || l.Order().Less(rv, floor):
		ws.fw.begin()
		ws.fw.errorFrame(tooOldWatch(rv, floor))
		return
	case errors.Is(err, history.ErrTooLarge):
		pos = l.End()
	case err != nil:
		status.Write(w, badRequest(err.Error()))
		return
	}
	ws.pos, ws.fromRV = pos, rv
	ws.fw.begin()
	ws.run()
}

// watchTimeout returns how long a watch stays open: what it asks for, or
// the server's default, within the server's cap.
func (o *options) watchTimeoutOf(q history.RequestInfo) time.Duration {
	d := o.watchTimeout
	if q.TimeoutSeconds > 0 {
		d = time.Duration(q.TimeoutSeconds) * time.Second
	}
	if c := o.maxWatchTimeout; c > 0 && (d <= 0 || d > c) {
		d = c
	}
	return d
}

// watchStream is one open watch: where it is in the log, what it selects
// and when it ends.
type watchStream struct {
	s          *Server
	l          *history.Log
	f          filter
	fw         *frameWriter
	ctx        context.Context
	kind, gv   string
	bookmarks  bool
	deadline   time.Time        // zero: no timeout
	expire     <-chan time.Time // fires at deadline
	gone       <-chan struct{}  // closed when the apiserver restarts (apiserver-restart)
	timer      *time.Timer
	pos        int    // the next event to consider
	fromRV     string // no bookmark carries an older resourceVersion
	availCache int    // events before it are known to be available

	// unapplied says the client asked for initial events and has not had
	// their end bookmark: it holds what the stream sends apart until then
	// (client-go's WatchList, in a temporary store), so the stream shows
	// it nothing (store.show).
	unapplied bool

	wf *watchFaults // what the fault plan does to it; nil without a plan
	// peek is ws.peekLive, made once rather than once an event
	peek peekFunc
}

// newWatchStream starts a watch's clock: its timeout runs from here, as
// kube-apiserver's runs from the start of the request.
func (s *Server) newWatchStream(w http.ResponseWriter, r *http.Request, l *history.Log, f filter, q history.RequestInfo) *watchStream {
	ws := &watchStream{
		s: s, l: l, f: f, fw: watchWriter(w, r, l.Resource), ctx: r.Context(),
		kind: l.Resource.Kind, gv: l.Resource.GroupVersion(),
		bookmarks: q.AllowWatchBookmarks, gone: s.restart.goneC(), unapplied: q.SendInitialEvents != nil && *q.SendInitialEvents,
	}
	ws.peek = ws.peekLive
	if d := s.opts.watchTimeoutOf(q); d > 0 {
		ws.deadline = time.Now().Add(d)
		ws.timer = time.NewTimer(d)
		ws.expire = ws.timer.C
	}
	return ws
}

func (ws *watchStream) stop() {
	if ws.timer != nil {
		ws.timer.Stop()
	}
}

// done reports whether the watch must end: the client left, the timeout
// passed or the apiserver restarted.
func (ws *watchStream) done() bool {
	select {
	case <-ws.ctx.Done():
		return true
	case <-ws.expire:
		return true
	case <-ws.gone:
		return true
	default:
		return false
	}
}

// nextBookmark returns when the next periodic bookmark is due, by the
// cacher's rule: every interval, and 2 s before the deadline, never past
// it. Its ok is false when no bookmark is left before the deadline.
func nextBookmark(now, deadline time.Time, every time.Duration) (at time.Time, ok bool) {
	if deadline.IsZero() {
		if every <= 0 {
			return time.Time{}, false
		}
		return now.Add(every), true
	}
	pre := deadline.Add(-preTimeoutBookmark)
	at = pre
	if every > 0 && now.Add(every).Before(pre) {
		at = now.Add(every)
	}
	if !at.After(now) {
		return time.Time{}, false
	}
	return at, true
}

// run sends the events from ws.pos on as they become available, and
// bookmarks when allowed, until the client leaves or the timeout passes.
func (ws *watchStream) run() {
	var bookmarkC <-chan time.Time
	schedule := func() {
		bookmarkC = nil
		if !ws.bookmarks {
			return
		}
		if at, ok := nextBookmark(time.Now(), ws.deadline, ws.s.opts.bookmarkInterval); ok {
			bookmarkC = time.After(time.Until(at))
		}
	}
	schedule()
	for {
		changedC := ws.follow()
		select {
		case <-ws.ctx.Done():
			return
		case <-ws.expire:
			return
		case <-ws.gone:
			return
		case <-bookmarkC:
			if ws.bookmark() != nil {
				return
			}
			schedule()
			continue
		default:
		}
		if ws.available() {
			if ws.send() != nil {
				return
			}
			continue
		}
		var eventC <-chan time.Time
		if ws.pos < ws.l.End() {
			d := ws.s.store.nextAt(ws.l, ws.pos)
			if d <= 0 { // rounding between available and nextAt: look again soon
				d = time.Millisecond
			}
			eventC = time.After(d)
		}
		select {
		case <-ws.ctx.Done():
			return
		case <-ws.expire:
			return
		case <-ws.gone:
			return
		case <-bookmarkC:
			if ws.bookmark() != nil {
				return
			}
			schedule()
		case <-eventC:
		case <-changedC: // a write appended an event
		}
	}
}

// follow moves ws to its resource's log as the writes left it. A write
// only appends, so ws.pos stays where it was. It returns a channel closed
// at the next write.
func (ws *watchStream) follow() <-chan struct{} {
	nl, changed := ws.s.store.follow(ws.l)
	if nl != ws.l {
		ws.l, ws.availCache = nl, 0
	}
	return changed
}

// available reports whether event ws.pos may be sent now.
func (ws *watchStream) available() bool {
	if ws.pos >= ws.l.End() {
		return false
	}
	if ws.pos >= ws.availCache {
		ws.availCache = ws.s.store.available(ws.l)
	}
	return ws.pos < ws.availCache
}

// send writes event ws.pos if the watch selects it, and moves on.
func (ws *watchStream) send() error {
	e := ws.l.Events[ws.pos]
	var err error
	if typ, o, ok := eventObject(e, ws.f); ok {
		err = ws.emitObject(typ, o, e.RV(), ws.peek)
	}
	if err != nil && err != errEndAfterFrame {
		return err
	}
	ws.pos++
	if ws.unapplied {
		ws.s.store.advance(ws.l, ws.pos)
	} else {
		ws.s.store.show(ws.l, ws.pos)
	}
	if e.Type == history.Deleted {
		ws.s.eng.collectGarbage() // the deletion has happened: its dependents go
	}
	return err
}

// emitObject sends the event frame of o, carrying rv, as emit does. With
// no fault plan, nothing acts on the frame. Then it renders the object
// straight into the frame.
func (ws *watchStream) emitObject(typ history.EventType, o *history.Object, rv string, peek peekFunc) error {
	f := outFrame{typ: typ, rv: rv}
	if ws.wf == nil {
		return ws.sent(f, ws.fw.objectFrame(typ, o, ws.kind, ws.gv))
	}
	f.obj = withKind(o, ws.kind, ws.gv)
	return ws.emit(f, peek)
}

// bookmark writes a BOOKMARK at the watch's position, or at the newest
// state the pace has reached if that is older. It does not when that
// would carry a resourceVersion older than the watch started from.
func (ws *watchStream) bookmark() error {
	rv := ws.s.store.happenedRV(ws.l, min(ws.pos, ws.s.store.available(ws.l)))
	if ws.fromRV != "" && ws.l.Order().Less(rv, ws.fromRV) {
		return nil
	}
	return ws.emit(outFrame{typ: history.Bookmark, obj: bookmarkObject(ws.l.Resource, rv, false), rv: rv}, nil)
}
