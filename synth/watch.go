package synth

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"strconv"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// watchStream writes a resource's watch stream, frame by frame, as
// changes come. Each change is a frame. A BOOKMARK follows every
// `every` changes, and a last BOOKMARK comes at the end. It keeps
// only the frames' arrival offsets; the frames go to w.
type watchStream struct {
	res   history.Resource
	every int
	t0    time.Time // when the response began
	last  time.Time // when the last change was made
	n     int       // changes written
	offs  []time.Duration
	w     io.Writer
	size  int64 // bytes written
	err   error // the first write error
}

// newWatchStream starts a watch stream whose response begins a second
// after start.
func newWatchStream(res history.Resource, every int, start time.Time, w io.Writer) *watchStream {
	t0 := start.Add(time.Second)
	return &watchStream{res: res, every: every, t0: t0, last: t0, w: w}
}

func (s *watchStream) emit(typ history.EventType, obj []byte, at time.Time) {
	if s.err != nil {
		return
	}
	n, err := fmt.Fprintf(s.w, `{"type":%q,"object":%s}`+"\n", typ, obj)
	s.size += int64(n)
	s.err = err
	s.offs = append(s.offs, max(at.Sub(s.t0), 0))
}

// add writes c's frame, and a BOOKMARK after it when one is due.
func (s *watchStream) add(c change) {
	raw := c.raw
	if o, _, _, err := history.ParseObject(raw); err == nil {
		raw = o.WithKind(s.res.Kind, s.res.GroupVersion())
	}
	s.emit(c.typ, raw, c.at)
	s.last = c.at
	s.n++
	if s.every > 0 && s.n%s.every == 0 {
		s.emit(history.Bookmark, bookmarkObject(s.res, strconv.FormatInt(c.rv, 10), false), c.at)
	}
}

// end writes the last BOOKMARK, at lastRV, when the history ends (at, or
// the last change when later). A bookmark at lastRV says every change up
// to it happened: one placed at this resource's last change would, under
// a paced replay, claim the other resources' later changes had happened
// then.
func (s *watchStream) end(lastRV int64, at time.Time) {
	if at.Before(s.last) {
		at = s.last
	}
	s.emit(history.Bookmark, bookmarkObject(s.res, strconv.FormatInt(lastRV, 10), false), at)
	s.last = at
}

// interaction returns the watch's interaction, without its body.
func (s *watchStream) interaction(path, fromRV string) cassette.Interaction {
	q := url.Values{"watch": {"true"}, "resourceVersion": {fromRV}, "allowWatchBookmarks": {"true"}, "timeoutSeconds": {"600"}}
	return cassette.Interaction{
		Method: "GET", URL: collectionURL(path, q), Code: 200, Header: jsonHeader,
		Started: s.t0, Duration: s.last.Sub(s.t0), FrameOffsets: s.offs,
	}
}

// watchInteraction renders changes as one watch from fromRV, its body in
// memory.
func watchInteraction(res history.Resource, path, fromRV string, changes []change, every int, lastRV int64, start, end time.Time) cassette.Interaction {
	var body bytes.Buffer
	s := newWatchStream(res, every, start, &body)
	for _, c := range changes {
		s.add(c)
	}
	s.end(lastRV, end)
	i := s.interaction(path, fromRV)
	i.Body = body.Bytes()
	return i
}

func bookmarkObject(res history.Resource, rv string, initialEnd bool) []byte {
	ann := ""
	if initialEnd {
		ann = `,"annotations":{"` + history.InitialEventsEndAnnotation + `":"true"}`
	}
	return []byte(fmt.Sprintf(`{"kind":%q,"apiVersion":%q,"metadata":{"resourceVersion":%q,"creationTimestamp":null%s}}`, res.Kind, res.GroupVersion(), rv, ann))
}
