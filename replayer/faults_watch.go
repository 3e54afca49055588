package replayer

import (
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

// watchFaults is what a fault plan does to one watch stream: the watch's
// point, the watch-level fault acting on the stream, and what the stream
// has sent so far.
type watchFaults struct {
	point faults.Point // the WATCH point; Request is the watch's ordinal
	// fault is the watch-level fault acting on the stream:
	// drop-all-bookmarks, close-watch, expire-watch,
	// missing-initial-events-end, or "".
	fault  string
	after  int    // close-watch, expire-watch: events sent before the end
	frames int    // frame points reached
	events int    // event frames sent (not bookmarks)
	lastRV string // the resourceVersion of the last frame sent
}

// watchPoint reaches the decision point of a valid WATCH request and acts
// out the decision that fires there. It reports whether it answered the
// request; if not, the stream it serves carries the returned state (nil
// without a plan). watchList says the request asks for initial events.
func (s *Server) watchPoint(w http.ResponseWriter, r *http.Request, q history.Request, l *history.Log, watchList bool) (*watchFaults, bool) {
	if s.fx == nil {
		return nil, false
	}
	// kube-apiserver's isListWatchRequest: initial events and an
	// initial-events-end bookmark
	listWatch := watchList && q.AllowWatchBookmarks
	resumes := !watchList && q.ResourceVersion != "" && q.ResourceVersion != "0"
	pt, d, ok := s.reach(faults.Point{Kind: faults.WatchPoint}, func(d faults.Decision) bool {
		switch d.Fault {
		case "http-error":
			_, ok := httpError(d.Param("code"))
			return ok
		case "drop-all-bookmarks":
			return q.AllowWatchBookmarks
		case "close-watch", "expire-watch":
			return true
		case "watchlist-unsupported", "missing-initial-events-end":
			return listWatch
		case "recreate":
			return resumes && s.canRecreate(l.Resource, q.ResourceVersion)
		}
		return false
	})
	wf := &watchFaults{point: pt}
	if !ok {
		return wf, false
	}
	from := fmt.Sprintf("rv %q", q.ResourceVersion)
	if q.ResourceVersion != "" {
		from = "rv " + q.ResourceVersion
	}
	switch d.Fault {
	case "http-error":
		st, _ := httpError(d.Param("code"))
		s.fire(pt, d.Fault, fmt.Sprint(st.Code))
		writeStatus(w, r, st)
		return nil, true
	case "watchlist-unsupported":
		s.fire(pt, d.Fault, "ERROR 500")
		answerError(w, watchListUnsupported())
		return nil, true
	case "close-watch", "expire-watch":
		if n := d.Param("after"); n > 0 {
			wf.fault, wf.after = d.Fault, n
			return wf, false
		}
		if d.Fault == "expire-watch" {
			s.fire(pt, d.Fault, "at open, "+from)
			s.moveOn(l)
			answerError(w, expired(watchExpiredMessage))
		} else {
			s.fire(pt, d.Fault, "before any event, "+from)
			newFrameWriter(w).begin()
		}
		return nil, true
	case "drop-all-bookmarks", "missing-initial-events-end":
		s.fire(pt, d.Fault, from)
		wf.fault = d.Fault
	case "recreate":
		newRV, detail, err := s.recreate(l.Resource, q.ResourceVersion, d.Param("object"))
		if err != nil {
			s.fire(pt, d.Fault, "not applied: "+err.Error())
			return wf, false
		}
		s.fire(pt, d.Fault, detail)
		answerError(w, tooOldWatch(q.ResourceVersion, newRV))
		return nil, true
	}
	return wf, false
}

// answerError answers a watch with HTTP 200 and one ERROR event.
func answerError(w http.ResponseWriter, st metav1.Status) {
	fw := newFrameWriter(w)
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

// afterEvents ends the stream once a close-watch or expire-watch fault has
// let its events through: cleanly, or with an ERROR 410 Expired event.
func (ws *watchStream) afterEvents() error {
	x := ws.fx
	if x.after <= 0 || x.events < x.after {
		return nil
	}
	detail := fmt.Sprintf("after event %d, rv %s", x.events, x.lastRV)
	switch x.fault {
	case "close-watch":
		ws.s.fire(x.point, x.fault, detail)
		return errEndAfterFrame
	case "expire-watch":
		ws.s.fire(x.point, x.fault, detail)
		ws.s.moveOn(ws.l)
		ws.fw.errorFrame(expired(watchExpiredMessage))
		return errEndAfterFrame
	}
	return nil
}

// moveOn advances the server's head to the newest state the pace allows:
// a 410 Expired says the server has moved past the client's
// resourceVersion (its history was compacted), so what the client lists
// next is the newest state, and changes in between reach it only as the
// difference, as on a real apiserver.
func (s *Server) moveOn(l *history.Log) {
	s.advance(l, s.available(l))
}

// errEndAfterFrame ends a watch stream right after a frame was sent: the
// frame counts as served.
var errEndAfterFrame = fmt.Errorf("%w after its last frame", errStreamEnd)
