package replayer

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/internal/inproc"
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
// one, and a func that makes the stream skip it (it has been sent). Its ok
// is false when there is none yet.
type peekFunc func() (f outFrame, skip func(), ok bool)

// emit sends frame f, acting out the decision that fires at its frame
// point, then runs the watch's end hook. The func peek finds the next
// event frame (for reorder); it may be nil.
func (ws *watchStream) emit(f outFrame, peek peekFunc) error {
	x := ws.wf
	if x == nil {
		return ws.sent(f, ws.fw.frame(f.typ, f.obj))
	}
	if x.skip != nil && x.skip(f) {
		return nil // not sent: no frame point
	}
	x.frames++
	pt := faults.Point{Kind: faults.FramePoint, Request: x.point.Request, Frame: x.frames, Bookmark: f.typ == history.Bookmark}
	c := &pointCtx{s: ws.s, pt: pt, ws: ws, frame: f, peek: peek}
	act, ok := ws.s.fx.reach(c)
	if !ok {
		act = func() error { return ws.write(f) }
	}
	if err := act(); err != nil {
		return err
	}
	if x.end != nil {
		return x.end(ws)
	}
	return nil
}

// dropBookmark sends nothing in place of a BOOKMARK but the
// initial-events-end one (drop-bookmark).
func dropBookmark(c *pointCtx, d faults.Decision) (func() error, bool) {
	if !c.bookmark() || c.frame.initialEnd {
		return nil, false
	}
	return dropped(c, d), true
}

// dropEvent sends nothing in place of an event (drop-event).
func dropEvent(c *pointCtx, d faults.Decision) (func() error, bool) {
	if c.bookmark() {
		return nil, false
	}
	return dropped(c, d), true
}

// dropped fires d at the frame and sends nothing.
func dropped(c *pointCtx, d faults.Decision) func() error {
	return func() error {
		c.s.fx.fire(c.pt, d.Fault, c.frameRV())
		return nil
	}
}

// garbleFrame sends an undecodable frame (invalid JSON, or a protobuf
// frame of a wire type protobuf lacks) in place of the frame (garble-frame).
func garbleFrame(c *pointCtx, d faults.Decision) (func() error, bool) {
	return func() error {
		c.s.fx.fire(c.pt, d.Fault, c.frameRV())
		garbled := []byte(garbledFrame)
		if c.ws.fw.pb != nil {
			garbled = garbledProtobufFrame
		}
		if err := c.ws.fw.raw(garbled); err != nil {
			return err
		}
		// The frame itself follows, so that the client's decoder meets the
		// syntax error. (An unterminated document at the end of a stream
		// would read as a cut, io.ErrUnexpectedEOF.) Then the stream ends.
		// apimachinery's StreamWatcher (watch/streamwatcher.go, receive)
		// stops reading at a frame it cannot decode. So how many frames a
		// persistent garble-frame garbles no longer depends on how far the
		// server got before the client closed.
		if err := c.ws.write(c.frame); err != nil {
			return err
		}
		return errStreamEnd
	}, true
}

// resetFrame cuts the connection in the middle of the frame (reset).
func resetFrame(c *pointCtx, d faults.Decision) (func() error, bool) {
	return func() error {
		c.s.fx.fire(c.pt, d.Fault, c.frameRV())
		c.ws.fw.cut(c.frame)
		return errStreamEnd
	}, true
}

// delayFrame pauses "ms" milliseconds before the frame (delay).
func delayFrame(c *pointCtx, d faults.Decision) (func() error, bool) {
	return func() error {
		ms := d.Param("ms")
		c.s.fx.fire(c.pt, d.Fault, fmt.Sprintf("%d ms before %s", ms, c.frameRV()))
		release := c.s.fx.hold()
		held := c.ws.pause(time.Duration(ms) * time.Millisecond)
		release()
		if !held {
			return errStreamEnd
		}
		return c.ws.write(c.frame)
	}, true
}

// duplicateEvent sends an event twice (duplicate).
func duplicateEvent(c *pointCtx, d faults.Decision) (func() error, bool) {
	if c.bookmark() {
		return nil, false
	}
	return func() error {
		c.s.fx.fire(c.pt, d.Fault, c.frameRV())
		if err := c.ws.write(c.frame); err != nil {
			return err
		}
		return c.ws.write(c.frame)
	}, true
}

// reorderEvents sends the next event the stream has now before this one
// (reorder); the next event's frame number goes with it.
func reorderEvents(c *pointCtx, d faults.Decision) (func() error, bool) {
	if c.bookmark() || c.peek == nil {
		return nil, false
	}
	if _, _, ok := c.peek(); !ok {
		return nil, false
	}
	return func() error {
		next, skip, _ := c.peek()
		skip()
		c.ws.wf.frames++ // the next event's frame is sent here
		c.s.fx.fire(c.pt, d.Fault, fmt.Sprintf("%s sent after rv %s", c.frameRV(), next.rv))
		if err := c.ws.write(next); err != nil {
			return err
		}
		return c.ws.write(c.frame)
	}, true
}

// regressRV sends an event carrying a resourceVersion older than the last
// frame's (rv-regress).
func regressRV(c *pointCtx, d faults.Decision) (func() error, bool) {
	if c.bookmark() {
		return nil, false
	}
	older, ok := c.ws.olderRV()
	if !ok {
		return nil, false
	}
	return func() error {
		c.s.fx.fire(c.pt, d.Fault, fmt.Sprintf("%s sent as %s", c.frameRV(), older))
		g := c.frame
		g.obj, g.rv = replaceRV(c.frame.obj, older), older
		return c.ws.write(g)
	}, true
}

// regressBookmark sends a BOOKMARK older than the last frame before the
// frame (bookmark-regress).
func regressBookmark(c *pointCtx, d faults.Decision) (func() error, bool) {
	older, ok := c.ws.olderRV()
	if !ok {
		return nil, false
	}
	return func() error {
		c.s.fx.fire(c.pt, d.Fault, fmt.Sprintf("rv %s before %s", older, c.frameRV()))
		b := outFrame{typ: history.Bookmark, obj: bookmarkObject(c.ws.l.Resource, older, false), rv: older}
		if err := c.ws.write(b); err != nil {
			return err
		}
		return c.ws.write(c.frame)
	}, true
}

// write sends f and counts it.
func (ws *watchStream) write(f outFrame) error {
	if err := ws.sent(f, ws.fw.frame(f.typ, f.obj)); err != nil {
		return err
	}
	if f.typ != history.Bookmark {
		ws.wf.events++
	}
	ws.wf.lastRV = f.rv
	return nil
}

// peekLive finds the next live event the watch selects among those
// available now.
func (ws *watchStream) peekLive() (outFrame, func(), bool) {
	avail := ws.s.store.available(ws.l)
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
	ref := ws.wf.lastRV
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
		// a pause that ends as the watch times out ends the watch: which
		// of two timers due at one instant a select takes is random
		return !ws.done()
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
// network fault would. The in-process transport's body read fails with
// io.ErrUnexpectedEOF. A real HTTP/1 connection is hijacked and closed in
// the middle of its chunked body. A writer that can do neither ends the
// answer after the half frame.
func (fw *frameWriter) cut(f outFrame) {
	if fw.err != nil {
		return
	}
	if err := fw.encode(f.typ, f.obj); err != nil {
		fw.err = err
		return
	}
	half := append([]byte(nil), fw.buf.Bytes()[:fw.buf.Len()/2]...)
	if fw.raw(half) != nil {
		return
	}
	fw.err = errStreamEnd
	if inproc.Break(fw.w, io.ErrUnexpectedEOF) {
		return
	}
	if conn, _, err := http.NewResponseController(fw.w).Hijack(); err == nil {
		conn.Close()
	}
}
