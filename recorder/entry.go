package recorder

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// entry is one recorded exchange while its answer is being read, and after.
//
// A watch entry copies each frame's bytes once, as they are read, into one
// buffer. The buffer holds the complete frames, each followed by a
// newline: the body as it is written. Then it holds the bytes of the frame
// being read. Bytes before done are never changed once there, and
// appending never moves what a view took. So a view taken under mu stays
// valid while reading goes on, and writing a file needs no join.
type entry struct {
	r       *Recorder
	it      cassette.Interaction // request, status, headers, Started; Body once finished
	collect bool                 // a collection GET: a list page when it answers 2xx
	watch   bool                 // a 2xx watch answer, recorded frame by frame
	rewrite bool                 // the body is decoded and redacted before it is kept

	mu        sync.Mutex
	body      []byte          // non-watch: the answer so far; watch: complete frames, then the frame being read
	done      int             // watch: bytes of body's complete frames with their newlines
	ends      []int           // watch: where each complete frame's newline is in body
	offsets   []time.Duration // watch: arrival of each frame since it.Started
	split     splitter
	initial   bool // in a WatchList's initial events
	synthetic bool // in the leading ADDED run of a watch from resourceVersion "" or "0"
	counted   int64
	end       string // how the stream ended (cassette.EndEOF, ...), set once
	final     bool   // no more bytes are taken
	kept      bool   // final and recorded (not dropped)
}

// frames returns how many complete frames a watch entry holds.
func (e *entry) frames() int { return len(e.ends) }

// frame returns complete frame k of a watch entry, without its newline.
func (e *entry) frame(k int) []byte {
	start := 0
	if k > 0 {
		start = e.ends[k-1] + 1
	}
	return e.body[start:e.ends[k]]
}

// recorded returns a watch entry's complete frames as a body, capped so
// that appending to it never writes into the entry's buffer.
func (e *entry) recorded() []byte {
	if e.done == 0 {
		return nil
	}
	return e.body[:e.done:e.done]
}

// pending returns how many bytes of a frame being read a watch entry holds.
func (e *entry) pending() int { return len(e.body) - e.done }

func newEntry(r *Recorder, it cassette.Interaction, q history.RequestInfo, isResource bool) *entry {
	ok2xx := it.Code >= 200 && it.Code < 300
	e := &entry{r: r, it: it}
	e.watch = isResource && q.Watch && ok2xx && it.Method == "GET"
	e.collect = isResource && !q.Watch && q.Name == "" && it.Method == "GET"
	e.rewrite = ok2xx && isResource && r.rd.active(q)
	if e.watch {
		e.initial = q.IsWatchList()
		e.synthetic = !e.initial && (q.ResourceVersion == "" || q.ResourceVersion == "0")
	}
	return e
}

// take records bytes the client has just read. It returns the change in
// the entry's sealable bytes.
func (e *entry) take(p []byte, now time.Time) int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.final {
		return 0
	}
	e.r.stats.bytes.Add(int64(len(p)))
	if !e.watch {
		e.body = grow(e.body, p)
		return 0
	}
	seg := -1 // where the frame being read starts in p
	if e.split.inFrame() {
		seg = 0
	}
	for i := 0; i < len(p); {
		k, ev := e.split.next(p, i)
		switch ev {
		case evStart:
			seg = k
		case evEnd:
			e.body = grow(e.body, p[seg:k+1])
			e.commit(now)
			seg = -1
		}
		i = k + 1
	}
	if seg >= 0 {
		e.body = grow(e.body, p[seg:])
	}
	return e.recount()
}

// newline ends each frame of a watch body.
var newline = []byte{'\n'}

// grow appends p to b, doubling b's capacity when it is short.
// (append grows large slices by a quarter. For a body of many
// megabytes that allocates five times its size in all.)
func grow(b, p []byte) []byte {
	if len(b)+len(p) > cap(b) {
		nb := make([]byte, len(b), max(2*cap(b), len(b)+len(p), 4096))
		copy(nb, b)
		b = nb
	}
	return append(b, p...)
}

// commit keeps the frame that body holds after done, now complete.
func (e *entry) commit(now time.Time) {
	frame := e.body[e.done:]
	var fi frameInfo
	if e.rewrite {
		out, info, ok := e.r.rd.frame(frame)
		if !ok { // not JSON: it cannot be redacted, so it is not kept
			e.body = e.body[:e.done]
			e.r.stats.partial.Add(1)
			return
		}
		e.body, fi = grow(e.body[:e.done], out), info
	} else {
		fi = classify(frame)
	}
	e.ends = append(e.ends, len(e.body))
	e.body = grow(e.body, newline)
	e.done = len(e.body)
	e.offsets = append(e.offsets, now.Sub(e.it.Started))
	st := &e.r.stats
	switch fi.typ {
	case history.Added:
		if e.initial {
			st.objects.Add(1)
		} else {
			st.events.Add(1)
		}
	case history.Modified, history.Deleted:
		st.events.Add(1)
	case history.Bookmark:
		st.bookmarks.Add(1)
		if e.initial && fi.initialEnd {
			e.initial = false
		}
	case history.Error:
		st.errors.Add(1)
	}
	if e.synthetic && fi.typ != history.Added && fi.typ != history.Error {
		e.synthetic = false
	}
	e.r.gen.Add(1)
}

// sealable returns how many of the entry's bytes could be written out and
// dropped at a rotation. Those are a finished answer's, or the frames of a
// watch past the point where it can be split.
func (e *entry) sealable() int64 {
	switch {
	case e.final && e.kept && e.watch:
		return int64(e.done)
	case e.final && e.kept:
		return int64(len(e.it.Body))
	case e.watch && !e.final && e.splittable():
		return int64(e.done)
	}
	return 0
}

// splittable reports whether an open watch can be split after its last
// complete frame. It cannot inside a WatchList's initial events, nor
// inside a watch's leading ADDED run: those only make sense whole.
func (e *entry) splittable() bool {
	return e.frames() > 0 && !e.initial && !e.synthetic
}

// recount updates the recorder's sealable byte count with this entry's
// change and returns it. Called with mu held.
func (e *entry) recount() int64 {
	d := e.sealable() - e.counted
	if d != 0 {
		e.counted += d
		e.r.size.Add(d)
	}
	return d
}

// setEnd notes how the answer ended, unless already noted.
func (e *entry) setEnd(end string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.end == "" && !e.final {
		e.end = end
	}
}

// finish ends the entry: eof says the answer was read to its end. A watch
// keeps its complete frames; a partial last one is dropped and counted. Any
// other answer is kept when read to its end, or when what was read is a
// whole JSON document.
func (e *entry) finish(now time.Time, eof bool) int64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.final {
		return 0
	}
	e.final = true
	st := &e.r.stats
	if e.watch {
		e.it.StreamEnd = e.end
		if e.pending() > 0 {
			st.partial.Add(1)
		}
		e.body = e.recorded()
		e.it.Body, e.it.FrameOffsets, e.it.Duration = e.body, e.offsets, now.Sub(e.it.Started)
		e.kept = true
		e.r.gen.Add(1)
		return e.recount()
	}
	if !eof && !e.whole() {
		e.body = nil
		return e.recount() // incomplete: not recorded
	}
	if strings.EqualFold(e.it.Header.Get("Content-Encoding"), "gzip") {
		// asked for by the client itself: the cassette holds it decoded
		plain, err := gunzip(e.body)
		if err != nil {
			e.body = nil
			return e.recount()
		}
		e.body = plain
		e.it.Header.Del("Content-Encoding")
	}
	e.it.Body, e.it.Duration = e.body, now.Sub(e.it.Started)
	ok2xx := e.it.Code >= 200 && e.it.Code < 300
	items, isList := 0, false
	if e.rewrite {
		out, n, ok := e.r.rd.document(e.body)
		if !ok {
			e.body = nil
			return e.recount() // a body that cannot be redacted is not recorded
		}
		e.it.Body = out
		items, isList = n, e.collect
	} else if e.collect && ok2xx {
		items, isList = countItems(e.body)
	}
	e.kept, e.body = true, nil // it.Body holds what is kept
	st.interactions.Add(1)
	switch {
	case !ok2xx:
		st.errors.Add(1)
	case isList && e.collect:
		st.pages.Add(1)
		st.objects.Add(int64(items))
	}
	e.r.gen.Add(1)
	return e.recount()
}

// whole reports whether a body closed before its end is complete anyway:
// a whole JSON document, or no body where none is due.
func (e *entry) whole() bool {
	if len(e.body) == 0 {
		return e.it.Code == 204 || e.it.Code == 304
	}
	if strings.EqualFold(e.it.Header.Get("Content-Encoding"), "gzip") {
		plain, err := gunzip(e.body)
		return err == nil && json.Valid(plain)
	}
	return json.Valid(e.body)
}

// snapshot returns the interaction as it stands, for a flush. A finished
// one is whole; an open watch has its complete frames so far. ok is
// false for what is not recorded (yet).
func (e *entry) snapshot(now time.Time) (cassette.Interaction, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch {
	case e.final:
		return e.it, e.kept
	case e.watch:
		it := e.it
		it.Body = e.recorded()
		it.FrameOffsets = e.offsets[:len(e.offsets):len(e.offsets)]
		it.Duration = now.Sub(it.Started)
		return it, true
	}
	return cassette.Interaction{}, false
}

// cut splits an open, splittable watch after its last complete frame. The
// frames so far are returned as an interaction of their own. The entry
// goes on as a watch from the resourceVersion of the last of them, as the
// client's re-watch would be. It starts at that frame's arrival, with the
// bytes of the frame being read. ok is false when the watch cannot be
// split. Called with mu held.
func (e *entry) cut() (cassette.Interaction, bool) {
	if e.final || !e.watch || !e.splittable() {
		return cassette.Interaction{}, false
	}
	rv := ""
	for k := e.frames() - 1; k >= 0 && rv == ""; k-- {
		rv = frameRV(e.frame(k))
	}
	next, err := continueURL(e.it.URL, rv)
	if rv == "" || err != nil {
		return cassette.Interaction{}, false
	}
	last := e.offsets[len(e.offsets)-1]
	part := e.it
	part.Body, part.FrameOffsets, part.Duration = e.recorded(), e.offsets, last
	// The watch goes on at the pace that filled this buffer. Room for as
	// much again spares the doublings of growing from nothing; each is a
	// fresh, zeroed buffer and a copy.
	e.body = append(make([]byte, 0, max(4096, e.done+e.done/4)), e.body[e.done:]...)
	e.done, e.ends, e.offsets = 0, nil, nil
	e.it.URL = next
	e.it.Started = e.it.Started.Add(last)
	e.r.size.Add(-e.counted)
	e.counted = 0
	return part, true
}

func gunzip(b []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	return io.ReadAll(zr)
}

// continueURL returns the URL of a watch continuing from rv: the same
// request without sendInitialEvents and resourceVersionMatch, at
// resourceVersion rv.
func continueURL(raw, rv string) (string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", err
	}
	q := u.Query()
	q.Del("sendInitialEvents")
	q.Del("resourceVersionMatch")
	q.Set("resourceVersion", rv)
	u.RawQuery = q.Encode()
	return u.String(), nil
}
