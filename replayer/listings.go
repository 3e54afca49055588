package replayer

import (
	"net/http"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
)

// FirstListing returns the resourceVersion of the first complete listing
// of res the server served. That is the last page of a LIST chain, or the
// initial-events-end BOOKMARK of a WatchList stream. (A last page is an
// answer with no continue token; a one-page LIST is its own last page.)
// A client's first store.Replace is of that state. So it is the state a
// client that reports synced must hold. Its ok is false while no listing
// of res has been completed.
func (s *Server) FirstListing(res history.Resource) (rv string, ok bool) {
	return s.store.firstListing(res)
}

// ForgetListings forgets the listings served so far: FirstListing then
// returns the first complete listing served after it — what a client that
// starts afresh (a crashed target's new instance) syncs to. It forgets
// too what answers had shown the target: a refused write counts as one no
// read could have spared (history.WriteAnswer.Unserved) unless the new
// instance was shown the version it met.
func (s *Server) ForgetListings() {
	s.store.forgetListings()
	s.eng.log.newInstance()
}

// answerList answers a LIST with page p of l's state at rv (as a Table
// when the request asked for one). It notes a last page of the target's
// as a complete listing.
func (s *Server) answerList(w http.ResponseWriter, r *http.Request, l *history.Log, rv string, p page) {
	if mv := metadataOf(r); mv != nil {
		if st := mv.listStatus(l.Resource); st != nil {
			status.Write(w, *st)
			return
		}
		body, err := mv.list(rv, p)
		if err != nil {
			status.Write(w, internalError(err))
			return
		}
		writeJSONAnswer(w, r, "application/json", body)
	} else if tv := tableOf(r); tv != nil {
		body, err := tv.list(r, l, rv, p)
		if err != nil {
			status.Write(w, internalError(err))
			return
		}
		writeJSONAnswer(w, r, "application/json", body)
	} else if pb, ok := protobufList(r, l.Resource, rv, p); ok {
		writeProtobuf(w, http.StatusOK, pb)
	} else {
		writeJSONAnswer(w, r, "application/json", listBody(l.Resource, rv, p))
	}
	if byActor(r) { // the listings and servings are the target's
		return
	}
	if p.next == "" {
		s.store.listed(l.Resource, rv)
	}
	if s.opts.hooks.OnServed != nil {
		s.opts.hooks.OnServed(Served{Resource: l.Resource, RV: rv, Items: p.items})
	}
}

// sent notes a frame the stream has sent; err is the sending's result,
// returned as it is. An initial-events-end BOOKMARK completes a listing.
// Storm detection notes what the request gained. An actor's stream notes
// nothing.
func (ws *watchStream) sent(f outFrame, err error) error {
	if actorOf(ws.ctx) != "" { // the listings, storms and servings are the target's
		return err
	}
	if err == nil && f.initialEnd {
		ws.s.store.listed(ws.l.Resource, f.rv)
	}
	if err == nil && ws.s.storms != nil {
		ws.noteFrame(f)
	}
	if err == nil && ws.s.opts.hooks.OnServed != nil {
		ws.s.opts.hooks.OnServed(Served{Resource: ws.l.Resource, Type: f.typ, RV: f.rv})
	}
	return err
}
