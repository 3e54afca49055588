package replayer

import (
	"errors"
	"fmt"
	"net/http"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// Messages of kube-apiserver's watch errors (k8s.io/apiserver
// pkg/storage/etcd3/errors.go and pkg/storage/cacher/cacher.go).
const (
	watchExpiredMessage     = "The resourceVersion for the provided watch is too old."
	watchListUnsupportedMsg = "a watch stream was requested by the client but the required storage feature RequestWatchProgress is disabled"
)

// watchFaults is what a fault plan does to one watch stream. It holds the
// watch's point, the hooks a watch-level fault put on the stream, and
// what the stream has sent so far.
type watchFaults struct {
	point faults.Point // the WATCH point; Request is the watch's ordinal
	// skip, when set, says a frame is not sent; it reaches no point.
	skip func(outFrame) bool
	// end, when set, runs after each frame point that did not end the
	// stream (the frame sent, or what a fault did in its place). An error
	// ends the stream.
	end func(*watchStream) error
	// plain says the WatchList request is served as a plain watch, as by
	// a server that does not know sendInitialEvents.
	plain  bool
	frames int    // frame points reached
	events int    // event frames sent (not bookmarks)
	lastRV string // the resourceVersion of the last frame sent
}

// watchPoint reaches the decision point of a valid WATCH request and acts
// out the decision that fires there. It reports whether it answered the
// request. If not, the stream it serves carries the returned state (nil
// without a plan). With watchList the request asks for initial events.
func (s *Server) watchPoint(w http.ResponseWriter, r *http.Request, q history.RequestInfo, l *history.Log, watchList bool) (*watchFaults, bool) {
	if s.fx == nil || !s.opts.faultsAt(r) {
		return nil, false
	}
	c := &pointCtx{s: s, pt: faults.Point{Kind: faults.WatchPoint}, w: w, r: r, q: q, l: l, watchList: watchList, wf: &watchFaults{}, actor: byActor(r)}
	act, ok := s.fx.reach(c)
	c.wf.point = c.pt
	if ok && errors.Is(act(), errAnswered) {
		return nil, true
	}
	return c.wf, false
}

// dropAllBookmarks makes a watch that allows bookmarks send none but the
// initial-events-end one (drop-all-bookmarks).
func dropAllBookmarks(c *pointCtx, d faults.Decision) (func() error, bool) {
	if !c.q.AllowWatchBookmarks {
		return nil, false
	}
	return func() error {
		c.s.fx.fire(c.pt, d.Fault, c.watchFrom())
		c.wf.skip = func(f outFrame) bool { return f.typ == history.Bookmark && !f.initialEnd }
		return nil
	}, true
}

// withholdInitialEventsEnd makes a WatchList stream never send its
// initial-events-end bookmark (missing-initial-events-end).
func withholdInitialEventsEnd(c *pointCtx, d faults.Decision) (func() error, bool) {
	if !c.listWatch() {
		return nil, false
	}
	return func() error {
		c.s.fx.fire(c.pt, d.Fault, c.watchFrom())
		c.wf.skip = func(f outFrame) bool { return f.typ == history.Bookmark && f.initialEnd }
		return nil
	}, true
}

// ignoreInitialEvents serves a WatchList request as a server that does
// not know sendInitialEvents does: as a plain watch (initial-events-ignored;
// see serveWatch).
func ignoreInitialEvents(c *pointCtx, d faults.Decision) (func() error, bool) {
	if !c.listWatch() {
		return nil, false
	}
	return func() error {
		c.s.fx.fire(c.pt, d.Fault, c.watchFrom())
		c.wf.plain = true
		return nil
	}, true
}

// closeWatch ends the watch cleanly after "after" events, or answers it
// with an empty stream when that is 0 (close-watch).
func closeWatch(c *pointCtx, d faults.Decision) (func() error, bool) {
	return func() error {
		if n := d.Param("after"); n > 0 {
			c.wf.end = endAfter(n, d.Fault, nil)
			return nil
		}
		c.s.fx.fire(c.pt, d.Fault, "before any event, "+c.watchFrom())
		watchWriter(c.w, c.r, c.l.Resource).begin()
		return errAnswered
	}, true
}

// expireWatch ends the watch with an ERROR event, 410 Expired, after
// "after" events, or answers it with one when that is 0 (expire-watch).
// Either way the server moves on (see moveOn), and the 410 is sticky. The
// resourceVersion refused and every older one stay expired (see
// compactThrough). The one refused is the one the watch asked for, or the
// last one it sent.
//
// It never strikes while a WatchList sends its initial events. They come
// from the watch cache's snapshot, which cannot fall behind compaction.
// And the client has no resourceVersion yet that could be too old. The
// ERROR then comes right after the initial-events-end bookmark at the
// earliest, and refuses the bookmark's resourceVersion.
//
// At open it acts only on a watch that asks for a resourceVersion. One
// from "" (the newest) or "0" (any) cannot be too old, and kube-apiserver
// never answers it 410.
func expireWatch(c *pointCtx, d faults.Decision) (func() error, bool) {
	if d.Param("after") == 0 && (c.q.ResourceVersion == "" || c.q.ResourceVersion == "0") {
		return nil, false
	}
	return func() error {
		if n := d.Param("after"); n > 0 {
			end := endAfter(n, d.Fault, func(ws *watchStream, fire func(string)) {
				ws.s.store.moveOn(ws.l)
				fire(compactedTo(ws.s.store.compactThrough(ws.l.Resource, ws.wf.lastRV)))
				ws.fw.errorFrame(expired(watchExpiredMessage))
			})
			c.wf.end = func(ws *watchStream) error {
				if c.listWatch() && ws.fromRV == "" {
					return nil // in the initial events
				}
				return end(ws)
			}
			return nil
		}
		c.s.store.moveOn(c.l)
		c.s.fx.fire(c.pt, d.Fault, "at open, "+c.watchFrom()+compactedTo(c.s.store.compactThrough(c.l.Resource, c.q.ResourceVersion)))
		answerError(watchWriter(c.w, c.r, c.l.Resource), expired(watchExpiredMessage))
		return errAnswered
	}, true
}

// closeAfterInitialEvents ends a WatchList stream cleanly right after its
// initial-events-end bookmark (close-after-initial-events). It compacts
// past the bookmark's resourceVersion. kube-apiserver runs a watch's
// timeout from the start of the request. So a WatchList whose initial
// events took most of it closes soon after the bookmark. By then etcd may
// have compacted past the bookmark's resourceVersion, and the re-watch
// from it gets 410 (kubernetes#134837). With nothing newer than the
// bookmark there is nothing to compact: the re-watch goes on from it.
func closeAfterInitialEvents(c *pointCtx, d faults.Decision) (func() error, bool) {
	if !c.listWatch() {
		return nil, false
	}
	return func() error {
		c.wf.end = func(ws *watchStream) error {
			if ws.fromRV == "" {
				return nil // in the initial events: the bookmark sets fromRV
			}
			ws.s.store.moveOn(ws.l)
			ws.s.fx.fire(ws.wf.point, d.Fault, "after the initial-events-end bookmark, rv "+ws.fromRV+compactedTo(ws.s.store.compactThrough(ws.l.Resource, ws.fromRV)))
			return errEndAfterFrame
		}
		return nil
	}, true
}

// endAfter is an end hook: once the stream has sent n events, it ends the
// stream after calling last. The func last fires fault at the watch's
// point through fire (with more detail, if any). It writes what the
// stream ends with. A nil last only fires.
func endAfter(n int, fault string, last func(ws *watchStream, fire func(more string))) func(*watchStream) error {
	return func(ws *watchStream) error {
		x := ws.wf
		if x.events < n {
			return nil
		}
		fire := func(more string) {
			ws.s.fx.fire(x.point, fault, fmt.Sprintf("after event %d, rv %s", x.events, x.lastRV)+more)
		}
		if last == nil {
			fire("")
		} else {
			last(ws, fire)
		}
		return errEndAfterFrame
	}
}

// refuseWatchList answers a WatchList request as an apiserver on etcd 3.4
// does (watchlist-unsupported).
func refuseWatchList(c *pointCtx, d faults.Decision) (func() error, bool) {
	if !c.listWatch() {
		return nil, false
	}
	return func() error {
		c.s.fx.fire(c.pt, d.Fault, "ERROR 500")
		answerError(watchWriter(c.w, c.r, c.l.Resource), watchListUnsupported())
		return errAnswered
	}, true
}

// recreateObject deletes and creates again an object of the state a
// resuming watch starts from (recreate). Then it answers the watch 410
// Expired, compacted to the new object's resourceVersion for the rest of
// the run. If the served history cannot take it, it fires "not applied"
// and the watch goes on.
func recreateObject(c *pointCtx, d faults.Decision) (func() error, bool) {
	if !c.resumes() || !c.s.opts.hooks.strikesAt(c.l.Resource) || !canRecreate(c.s.store, c.l.Resource, c.q.ResourceVersion) {
		return nil, false
	}
	return func() error {
		newRV, detail, err := c.s.eng.recreate(c.l.Resource, c.q.ResourceVersion, d.Param("object"))
		if err != nil {
			c.s.fx.fire(c.pt, d.Fault, "not applied: "+err.Error())
			return nil
		}
		if l, ok := c.s.store.log(c.l.Resource); ok { // recreate made a new one
			detail += compactedTo(c.s.store.raiseFloor(l, newRV))
		}
		c.s.fx.fire(c.pt, d.Fault, detail)
		answerError(watchWriter(c.w, c.r, c.l.Resource), tooOldWatch(c.q.ResourceVersion, newRV))
		return errAnswered
	}, true
}

// answerError answers a watch with HTTP 200 and one ERROR event.
func answerError(fw *frameWriter, st metav1.Status) {
	fw.begin()
	fw.errorFrame(st)
}

// watchListUnsupported is the ERROR kube-apiserver sends for a WatchList
// request when its etcd has no progress notifications (etcd 3.4).
func watchListUnsupported() metav1.Status {
	return metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonInternalError,
		Message: watchListUnsupportedMsg,
	}
}

// errEndAfterFrame ends a watch stream right after a frame was sent: the
// frame counts as served.
var errEndAfterFrame = fmt.Errorf("%w after its last frame", errStreamEnd)
