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

	"github.com/lwreplay/lwreplay/cassette"
)

// A watch stream's frames are read line by line from its body (which may
// still be in the cassette file: cassette.WithLazyBodies) and parsed in
// batches on every CPU: a frame's JSON is decoded once, into its type and
// its object's metadata, and the object's bytes are cut out of the frame
// as kube-apiserver lays it out ({"type":...,"object":{...}}), so that a
// frame is scanned twice (validated, decoded), not five times.

// frameBatch is how many frames are parsed together.
const frameBatch = 2048

type wireEvent struct {
	Type   EventType       `json:"type"`
	Object json.RawMessage `json:"object"`
}

// wireFrame is a frame decoded in one pass: its type and its object's
// metadata.
type wireFrame struct {
	Type   EventType  `json:"type"`
	Object objectMeta `json:"object"`
}

// parseFrames reads i's watch stream into r.frames: line by line, or,
// when a line is not one whole frame (pretty-printed JSON, two frames on
// a line, a broken frame), with a JSON stream decoder from the start, which
// also names what is wrong.
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
		if err := json.Unmarshal(line, &wf); err != nil {
			return fmt.Errorf("%w: %s: unparsable frame: %v", cassette.ErrFormat, loc, err)
		}
		f, err := parseFrame(loc, line, &wf)
		if err != nil {
			return err
		}
		if r.started >= 0 && n < len(i.FrameOffsets) {
			f.at = r.started + i.FrameOffsets[n]
		}
		if f.obj != nil && r.kindName == "" {
			r.kindName, r.apiVersion = wf.Object.Kind, wf.Object.APIVersion
		}
		r.build.keep(f.obj)
		r.frames = append(r.frames, f)
	}
}

// errNotLines says a watch stream is not one frame per line.
var errNotLines = errors.New("not one frame per line")

// parseLines reads i's watch stream one frame per line, in batches.
func parseLines(r *record, i cassette.Interaction) error {
	rc, err := i.OpenBody()
	if err != nil {
		return fmt.Errorf("%s: %w", r.loc, err)
	}
	defer rc.Close()
	in := bufio.NewReaderSize(rc, 1<<20)
	var lines [][]byte
	for eof := false; !eof; {
		line, err := in.ReadBytes('\n')
		switch {
		case err == io.EOF:
			eof = true
		case err != nil:
			return fmt.Errorf("%w: %s: %v", cassette.ErrFormat, r.loc, err)
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			lines = append(lines, t)
		}
		if len(lines) == frameBatch || (eof && len(lines) > 0) {
			if err := r.parseBatch(lines, i.FrameOffsets); err != nil {
				return err
			}
			lines = lines[:0]
		}
	}
	return nil
}

// parseBatch parses lines, the next frames of r's stream, on every CPU and
// appends them in order.
func (r *record) parseBatch(lines [][]byte, offsets []time.Duration) error {
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
		if o := out[k].obj; o != nil && r.kindName == "" {
			r.kindName, r.apiVersion = types[k][0], types[k][1]
		}
	}
	for k := range out {
		r.build.keep(out[k].obj)
	}
	r.frames = append(r.frames, out...)
	return nil
}

// parseFrame parses one watch frame, decoding it into wf.
func parseFrame(loc Location, line []byte, wf *wireFrame) (frame, error) {
	f := frame{loc: loc, at: -1}
	if err := json.Unmarshal(line, wf); err != nil {
		return f, errNotLines // the stream decoder says what is wrong
	}
	f.typ = wf.Type
	obj := objectSpan(line, wf.Type)
	if obj == nil && wf.Type != Bookmark {
		var we wireEvent
		if err := json.Unmarshal(line, &we); err != nil {
			return f, fmt.Errorf("%w: %s: unparsable frame: %v", cassette.ErrFormat, loc, err)
		}
		obj = we.Object
	}
	m := &wf.Object
	switch wf.Type {
	case Added, Modified, Deleted:
		o, err := objectFrom(m, obj)
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
