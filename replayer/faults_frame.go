package replayer

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// errStreamEnd ends a watch stream early: the client left, the timeout
// passed, or a fault ended it.
var errStreamEnd = errors.New("watch stream ended")

// garbledFrame is what garble-frame sends in place of a frame: the start of
// an event that never ends, then a newline.
const garbledFrame = `{"type":"MODIFIED","object":{` + "\n"

// outFrame is a frame a watch stream is about to send.
type outFrame struct {
	typ        history.EventType
	obj        []byte // the event's object
	rv         string // the resourceVersion it carries
	initialEnd bool   // the bookmark that ends a WatchList's initial events
}

// peekFunc returns the event frame a stream would send after the current
// one, and a func that makes the stream skip it (it has been sent); ok is
// false when there is none yet.
type peekFunc func() (f outFrame, skip func(), ok bool)

// emit sends frame f, acting out the decision that fires at its frame
// point. peek finds the next event frame (for reorder); it may be nil.
func (ws *watchStream) emit(f outFrame, peek peekFunc) error {
	x := ws.fx
	if x == nil {
		return ws.fw.frame(f.typ, f.obj)
	}
	bookmark := f.typ == history.Bookmark
	switch {
	case bookmark && f.initialEnd && x.fault == "missing-initial-events-end",
		bookmark && !f.initialEnd && x.fault == "drop-all-bookmarks":
		return nil // not sent: no frame point
	}
	x.frames++
	var older string
	pt := faults.Point{Kind: faults.FramePoint, Request: x.point.Request, Frame: x.frames, Bookmark: bookmark}
	pt, d, ok := ws.s.reach(pt, func(d faults.Decision) bool {
		switch d.Fault {
		case "reset", "delay", "garble-frame":
			return true
		case "drop-bookmark":
			return bookmark && !f.initialEnd
		case "duplicate", "drop-event":
			return !bookmark
		case "reorder":
			if bookmark || peek == nil {
				return false
			}
			_, _, ok := peek()
			return ok
		case "rv-regress", "bookmark-regress":
			if bookmark && d.Fault == "rv-regress" {
				return false
			}
			var ok bool
			older, ok = ws.olderRV()
			return ok
		}
		return false
	})
	if !ok {
		if err := ws.write(f); err != nil {
			return err
		}
		return ws.afterEvents()
	}
	at := "rv " + f.rv
	switch d.Fault {
	case "drop-bookmark", "drop-event":
		ws.s.fire(pt, d.Fault, at)
		return nil
	case "garble-frame":
		ws.s.fire(pt, d.Fault, at)
		return ws.fw.raw([]byte(garbledFrame))
	case "reset":
		ws.s.fire(pt, d.Fault, at)
		ws.fw.cut(f)
		return errStreamEnd
	case "delay":
		ms := d.Param("ms")
		ws.s.fire(pt, d.Fault, fmt.Sprintf("%d ms before %s", ms, at))
		if !ws.pause(time.Duration(ms) * time.Millisecond) {
			return errStreamEnd
		}
		if err := ws.write(f); err != nil {
			return err
		}
	case "duplicate":
		ws.s.fire(pt, d.Fault, at)
		if err := ws.write(f); err != nil {
			return err
		}
		if err := ws.write(f); err != nil {
			return err
		}
	case "reorder":
		next, skip, _ := peek()
		skip()
		x.frames++ // the next event's frame is sent here
		ws.s.fire(pt, d.Fault, fmt.Sprintf("%s sent after rv %s", at, next.rv))
		if err := ws.write(next); err != nil {
			return err
		}
		if err := ws.write(f); err != nil {
			return err
		}
	case "rv-regress":
		ws.s.fire(pt, d.Fault, fmt.Sprintf("%s sent as %s", at, older))
		g := f
		g.obj, g.rv = replaceRV(f.obj, older), older
		if err := ws.write(g); err != nil {
			return err
		}
	case "bookmark-regress":
		ws.s.fire(pt, d.Fault, fmt.Sprintf("rv %s before %s", older, at))
		b := outFrame{typ: history.Bookmark, obj: bookmarkObject(ws.l.Resource, older, false), rv: older}
		if err := ws.write(b); err != nil {
			return err
		}
		if err := ws.write(f); err != nil {
			return err
		}
	}
	return ws.afterEvents()
}

// write sends f and counts it.
func (ws *watchStream) write(f outFrame) error {
	if err := ws.fw.frame(f.typ, f.obj); err != nil {
		return err
	}
	if f.typ != history.Bookmark {
		ws.fx.events++
	}
	ws.fx.lastRV = f.rv
	return nil
}

// peekLive finds the next live event the watch selects among those
// available now.
func (ws *watchStream) peekLive() (outFrame, func(), bool) {
	avail := ws.s.available(ws.l)
	for p := ws.pos + 1; p < avail; p++ {
		e := ws.l.Events[p]
		if typ, obj, ok := eventFrame(e, ws.f, ws.kind, ws.gv); ok {
			return outFrame{typ: typ, obj: obj, rv: e.RV()}, func() { ws.pos = p }, true
		}
	}
	return outFrame{}, nil, false
}

// olderRV returns a resourceVersion older than the last frame's (or, before
// any frame, the watch's start): the newest such one the log knows.
func (ws *watchStream) olderRV() (string, bool) {
	ref := ws.fx.lastRV
	if ref == "" {
		ref = ws.fromRV
	}
	return olderRV(ws.l, ref)
}

// olderRV returns the newest resourceVersion of l (of a position or an
// initial object) older than ref.
func olderRV(l *history.Log, ref string) (string, bool) {
	if ref == "" {
		return "", false
	}
	p, err := l.Position(ref)
	switch {
	case errors.Is(err, history.ErrTooLarge):
		p = l.End()
	case err != nil:
		p = -1
	}
	for ; p >= 0; p-- {
		if rv := l.RVAt(p); l.Order().Less(rv, ref) {
			return rv, true
		}
	}
	best := ""
	for _, o := range l.Initial {
		if rv := o.ResourceVersion; l.Order().Less(rv, ref) && (best == "" || l.Order().Less(best, rv)) {
			best = rv
		}
	}
	return best, best != ""
}

// replaceRV returns an event object's JSON with metadata.resourceVersion rv.
func replaceRV(obj []byte, rv string) []byte {
	if from, to, ok := metadataRVSpan(obj); ok {
		out := append([]byte(nil), obj[:from]...)
		out = append(out, jsonQuote(rv)...)
		return append(out, obj[to:]...)
	}
	o, kind, apiVersion, err := history.ParseObject(obj)
	if err != nil {
		return obj
	}
	c, err := history.WithResourceVersion(o, rv)
	if err != nil {
		return obj
	}
	return c.WithKind(kind, apiVersion)
}

// pause waits d; it reports false if the client left or the watch timed
// out first.
func (ws *watchStream) pause(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ws.ctx.Done():
		return false
	case <-ws.expire:
		return false
	}
}

// raw writes bytes that are not a frame.
func (fw *frameWriter) raw(b []byte) error {
	if fw.err != nil {
		return fw.err
	}
	if _, err := fw.w.Write(b); err != nil {
		fw.err = err
		return err
	}
	fw.flush()
	return nil
}

// cut writes the first half of frame f and cuts the connection, as a
// network fault would: the in-process transport's body read fails with
// io.ErrUnexpectedEOF; a real HTTP/1 connection is hijacked and closed in
// the middle of its chunked body. A writer that can do neither ends the
// answer after the half frame.
func (fw *frameWriter) cut(f outFrame) {
	if fw.err != nil {
		return
	}
	fw.encode(f.typ, f.obj)
	half := append([]byte(nil), fw.buf.Bytes()[:fw.buf.Len()/2]...)
	if fw.raw(half) != nil {
		return
	}
	fw.err = errStreamEnd
	if p, ok := fw.w.(*pipeResponse); ok {
		p.pw.CloseWithError(io.ErrUnexpectedEOF)
		return
	}
	if conn, _, err := http.NewResponseController(fw.w).Hijack(); err == nil {
		conn.Close()
	}
}
