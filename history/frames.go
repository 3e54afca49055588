package history

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lwreplay/lwreplay/cassette"
)

// A watch stream's frames are read line by line from its body, which may
// still be in the cassette file (cassette.WithLazyBodies). They are
// parsed in batches on every CPU. A frame's JSON is decoded once, into
// its type and its object's metadata. The object's bytes are cut out of
// the frame as kube-apiserver lays it out ({"type":...,"object":{...}}).
// So a frame is scanned once, not five times; it is validated as it is
// decoded (decodeJSON).

// frameBatch is how many frames are parsed together.
const frameBatch = 2048

type wireEvent struct {
	Type   EventType      `json:"type"`
	Object jsontext.Value `json:"object"`
}

// wireFrame is a frame decoded in one pass: its type and its object's
// metadata.
type wireFrame struct {
	Type   EventType  `json:"type"`
	Object objectMeta `json:"object"`
}

// parseFrames reads i's watch stream into r.frames, line by line. A line
// may not be one whole frame: pretty-printed JSON, two frames on a line, a
// broken frame. Then it reads with a JSON stream decoder from the start,
// which also names what is wrong.
func parseFrames(r *record, i cassette.Interaction) error {
	if err := parseLines(r, i); err == nil || !errors.Is(err, errNotLines) {
		return err
	}
	r.frames = nil
	rc, err := i.OpenBody()
	if err != nil {
		return fmt.Errorf("%s: %w", r.loc, err)
	}
	defer rc.Close()
	dec := json.NewDecoder(bufio.NewReaderSize(rc, 1<<20))
	for n := 0; ; n++ {
		loc := r.loc
		loc.Event = n
		var we wireEvent
		if err := dec.Decode(&we); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("%w: %s: unparsable frame: %v", cassette.ErrFormat, loc, err)
		}
		line, err := json.Marshal(we)
		if err != nil {
			return fmt.Errorf("%w: %s: unparsable frame: %v", cassette.ErrFormat, loc, err)
		}
		var wf wireFrame
		f, err := parseFrame(loc, line, &wf)
		var se syntaxError
		switch {
		case errors.As(err, &se):
			return fmt.Errorf("%w: %s: unparsable frame: %v", cassette.ErrFormat, loc, se.err)
		case err != nil:
			return err
		}
		if r.started >= 0 && n < len(i.FrameOffsets) {
			f.at = r.started + i.FrameOffsets[n]
		}
		if (f.obj != nil || f.typ == Bookmark) && r.kindName == "" && wf.Object.Kind != "" {
			r.kindName, r.apiVersion = wf.Object.Kind, wf.Object.APIVersion // a bookmark's object is of the kind too
		}
		r.build.keep(f.obj)
		r.frames = append(r.frames, f)
	}
}

// errNotLines says a watch stream is not one frame per line.
var errNotLines = errors.New("not one frame per line")

// syntaxError is a frame's JSON that does not decode. On a line, it is
// a sign that the stream is not one frame per line (it is errNotLines).
type syntaxError struct{ err error }

func (e syntaxError) Error() string        { return e.err.Error() }
func (e syntaxError) Is(target error) bool { return target == errNotLines }

// parseLines reads i's watch stream one frame per line, in batches. A
// batch's lines are read into one buffer of their own. Objects' JSON is
// cut out of it in place; once that JSON is in the blob store's file, the
// buffer is used again. The lines are parsed on every CPU, and kept
// (buildState.keepAsync) while the next batch is parsed.
func parseLines(r *record, i cassette.Interaction) error {
	rc, err := i.OpenBody()
	if err != nil {
		return fmt.Errorf("%s: %w", r.loc, err)
	}
	defer rc.Close()
	in := bufio.NewReaderSize(rc, 1<<20)
	buf := r.build.batchBuffer()
	var spans [][2]int // each line's start and end in buf
	line := -1         // start in buf of the line being read
	for eof := false; !eof; {
		frag, err := in.ReadSlice('\n')
		switch {
		case err == io.EOF:
			eof = true
		case err != nil && err != bufio.ErrBufferFull:
			return fmt.Errorf("%w: %s: %v", cassette.ErrFormat, r.loc, err)
		}
		if line < 0 {
			line = len(buf)
		}
		buf = append(buf, frag...)
		if err == bufio.ErrBufferFull {
			continue // the line goes on
		}
		start, end := line, len(buf)
		line = -1
		for start < end && isSpace(buf[start]) {
			start++
		}
		for end > start && isSpace(buf[end-1]) {
			end--
		}
		if end > start {
			spans = append(spans, [2]int{start, end})
		}
		if len(spans) == frameBatch || len(buf) >= batchBytes || (eof && len(spans) > 0) {
			lines := make([][]byte, len(spans))
			for k, sp := range spans {
				lines[k] = buf[sp[0]:sp[1]:sp[1]]
			}
			if err := r.parseBatch(lines, buf, i.FrameOffsets); err != nil {
				return err
			}
			buf, spans = r.build.batchBuffer(), spans[:0]
		}
	}
	return nil
}

// batchBytes is the size from which a batch of frames is parsed, whatever
// their number.
const batchBytes = 8 << 20

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// parseBatch parses lines, the next frames of r's stream, on every CPU,
// and appends them in order. lines are cut out of buf, which it gives away
// (buildState.keepAsync).
func (r *record) parseBatch(lines [][]byte, buf []byte, offsets []time.Duration) error {
	base := len(r.frames)
	out := make([]frame, len(lines))
	errs := make([]error, len(lines))
	types := make([][2]string, len(lines)) // each object's kind and apiVersion
	workers := min(runtime.GOMAXPROCS(0), (len(lines)+255)/256)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := w; k < len(lines); k += workers {
				n := base + k
				loc := r.loc
				loc.Event = n
				var wf wireFrame
				f, err := parseFrame(loc, lines[k], &wf)
				types[k] = [2]string{wf.Object.Kind, wf.Object.APIVersion}
				if err != nil {
					errs[k] = err
					continue
				}
				if r.started >= 0 && n < len(offsets) {
					f.at = r.started + offsets[n]
				}
				out[k] = f
			}
		}()
	}
	wg.Wait()
	for k := range out {
		if errs[k] != nil {
			return errs[k]
		}
		if (out[k].obj != nil || out[k].typ == Bookmark) && r.kindName == "" && types[k][0] != "" {
			r.kindName, r.apiVersion = types[k][0], types[k][1] // a bookmark's object is of the kind too
		}
	}
	objs := make([]*Object, 0, len(out))
	for k := range out {
		if out[k].obj != nil {
			objs = append(objs, out[k].obj)
		}
	}
	r.build.keepAsync(objs, buf)
	r.frames = append(r.frames, out...)
	return nil
}

// parseFrame parses one watch frame, decoding it into wf. The object's
// JSON is cut out of line in place: line is the caller's to give away.
func parseFrame(loc Location, line []byte, wf *wireFrame) (frame, error) {
	f := frame{event: loc.Event, at: -1}
	if err := decodeJSON(line, wf); err != nil {
		return f, syntaxError{err} // the stream decoder says what is wrong
	}
	f.typ = wf.Type
	obj := objectSpan(line, wf.Type)
	if obj == nil && wf.Type != Bookmark {
		var we wireEvent
		if err := decodeJSON(line, &we); err != nil {
			return f, fmt.Errorf("%w: %s: unparsable frame: %v", cassette.ErrFormat, loc, err)
		}
		obj = we.Object
	}
	m := &wf.Object
	switch wf.Type {
	case Added, Modified, Deleted:
		o, err := objectFrom(m, obj, true)
		if err != nil {
			return f, fmt.Errorf("%w: %s: %v", cassette.ErrFormat, loc, err)
		}
		if o.ResourceVersion == "" {
			return f, fmt.Errorf("%w: %s: %s object has no resourceVersion", cassette.ErrFormat, loc, wf.Type)
		}
		f.obj, f.rv = o, o.ResourceVersion
	case Bookmark:
		if m.Metadata.ResourceVersion == "" {
			return f, fmt.Errorf("%w: %s: bookmark has no resourceVersion", cassette.ErrFormat, loc)
		}
		f.rv = m.Metadata.ResourceVersion
		f.initialEnd = m.Metadata.Annotations[InitialEventsEndAnnotation] == "true"
	case Error:
		f.err = parseStatus(loc, 0, append([]byte(nil), obj...))
	default:
		return f, fmt.Errorf("%w: %s: unknown event type %q", cassette.ErrFormat, loc, wf.Type)
	}
	return f, nil
}

// objectSpan returns the object of a frame laid out as kube-apiserver
// writes one, {"type":"ADDED","object":{...}}; nil for any other layout.
func objectSpan(line []byte, typ EventType) []byte {
	rest, ok := bytes.CutPrefix(line, []byte(`{"type":"`))
	if !ok {
		return nil
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(typ)); !ok {
		return nil
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`","object":`)); !ok {
		return nil
	}
	if rest, ok = bytes.CutSuffix(rest, []byte("}")); !ok || len(rest) == 0 || rest[0] != '{' {
		return nil
	}
	return rest
}
