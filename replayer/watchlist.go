package replayer

import (
	"errors"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversion "k8s.io/apimachinery/pkg/apis/meta/internalversion"
	"k8s.io/apimachinery/pkg/apis/meta/internalversion/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
)

// watchOptions defaults and validates a watch's options as kube-apiserver
// does with its WatchList feature on (the default since 1.34). A watch
// from resourceVersion "" or "0" that sets neither sendInitialEvents nor
// resourceVersionMatch gets sendInitialEvents=true and NotOlderThan. An
// invalid combination is the 422 Invalid kube-apiserver answers. An
// example: "ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch:
// Forbidden: sendInitialEvents requires setting resourceVersionMatch to
// NotOlderThan".
func watchOptions(q history.RequestInfo) (metainternalversion.ListOptions, *metav1.Status) {
	o := metainternalversion.ListOptions{
		Watch:                true,
		ResourceVersion:      q.ResourceVersion,
		ResourceVersionMatch: metav1.ResourceVersionMatch(q.ResourceVersionMatch),
		Continue:             q.Continue,
		AllowWatchBookmarks:  q.AllowWatchBookmarks,
		SendInitialEvents:    q.SendInitialEvents,
	}
	metainternalversion.SetListOptionsDefaults(&o, true)
	if errs := validation.ValidateListOptions(&o, true); len(errs) > 0 {
		st := apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "ListOptions"}, "", errs).ErrStatus
		return o, &st
	}
	return o, nil
}

// serveInitialEvents streams the state at max(resourceVersion, head) as
// synthetic ADDED events sorted by key. Then, when bookmarks are allowed,
// it sends a BOOKMARK at that state's resourceVersion annotated
// k8s.io/initial-events-end. (kube-apiserver sends it only then.) Then it
// sends live events on the same stream, as a watch does.
//
// The head is the newest state any answer reached, never older than the
// compaction point. The resourceVersions "" and "0" mean the head. An RV
// older than the history (or the compaction point) is no error under
// NotOlderThan: the head is newer. An RV the history holds but the pace
// has not made available yet is waited for. The server's too-large wait
// is 3 s, as the watch cache's. An RV not reached within it gets HTTP 200
// and one ERROR event, 504 Timeout "Too large resource version".
// client-go answers that by starting over from resourceVersion "".
func (s *Server) serveInitialEvents(w http.ResponseWriter, r *http.Request, l *history.Log, f filter, endBookmark bool, q history.RequestInfo, wf *watchFaults) {
	ws := s.newWatchStream(w, r, l, f, q)
	ws.wf = wf
	defer ws.stop()
	pos := s.store.newestPosition(l)
	if rv := q.ResourceVersion; rv != "" && rv != "0" {
		p, err := l.Position(rv)
		switch {
		case errors.Is(err, history.ErrUnknownRV):
			status.Write(w, invalidRV(l, rv))
			return
		case errors.Is(err, history.ErrTooOld):
		case errors.Is(err, history.ErrTooLarge):
			if !sleepCtx(ws.ctx, s.opts.tooLargeWait) {
				return
			}
			ws.fw.begin()
			ws.fw.errorFrame(tooLarge(rv, l.RVAt(s.store.available(l))))
			return
		case err != nil:
			status.Write(w, badRequest(err.Error()))
			return
		default:
			if p > pos {
				pos = p
			}
		}
		if pos > s.store.available(l) && !s.store.waitAvailable(ws.ctx, l, pos, s.opts.tooLargeWait) {
			if ws.ctx.Err() == nil {
				ws.fw.begin()
				ws.fw.errorFrame(tooLarge(rv, l.RVAt(s.store.available(l))))
			}
			return
		}
	}
	ws.fw.begin()
	if ws.initialEvents(collection(l.StateAt(pos), q.Namespace)) != nil {
		return
	}
	ws.pos, ws.fromRV = pos, s.store.happenedRV(l, pos)
	s.store.advance(l, pos)
	if endBookmark {
		end := outFrame{typ: history.Bookmark, obj: bookmarkObject(l.Resource, ws.fromRV, true), rv: ws.fromRV, initialEnd: true}
		if ws.emit(end, nil) != nil {
			return
		}
		ws.unapplied = false // the client applies what it held
		s.store.show(l, pos)
	}
	ws.run()
}

// initialEvents sends an ADDED event for each object of objs (sorted by
// key) that the watch selects, until the client leaves or the timeout
// passes.
func (ws *watchStream) initialEvents(objs []*history.Object) error {
	next := 0 // the next object to consider
	peek := func() (outFrame, func(), bool) {
		for j := next; j < len(objs); j++ {
			if ws.f.match(objs[j]) {
				return ws.addedFrame(objs[j]), func() { next = j + 1 }, true
			}
		}
		return outFrame{}, nil, false
	}
	// The initial events are all ready at once. So a frame is flushed with
	// the ones after it, unless a fault plan watches each frame go out.
	ws.fw.holding(ws.wf == nil)
	defer ws.fw.holding(false)
	for next < len(objs) {
		o := objs[next]
		next++
		if !ws.f.match(o) {
			continue
		}
		if ws.done() {
			return errStreamEnd
		}
		if err := ws.emitObject(history.Added, o, o.ResourceVersion, peek); err != nil {
			return err
		}
	}
	return nil
}

// addedFrame is the ADDED event of an initial object.
func (ws *watchStream) addedFrame(o *history.Object) outFrame {
	return outFrame{typ: history.Added, obj: withKind(o, ws.kind, ws.gv), rv: o.ResourceVersion}
}
