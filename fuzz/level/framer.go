package level

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/framer"
)

// The typed level's clientset reads a watch stream as client-go's JSON
// framer does, one JSON value per frame. But it does not scan every frame
// with encoding/json. The replayer (as kube-apiserver) ends each frame with
// a newline. So a line that is one whole JSON value is the frame the JSON
// framer would give, and whether a line is one is kept in the memo.
// A garbled frame, a frame cut by the end of the body, or an error is no
// such line. From the first one, the rest of the stream goes through
// client-go's JSON framer itself. So it ends with the very error it gives
// at the wire level.

// memoFramer is client-go's JSON framer, reading whole lines through the
// memo.
type memoFramer struct {
	runtime.Framer
	cache *Cache
}

// NewFrameReader returns a reader of r's frames.
func (f memoFramer) NewFrameReader(r io.ReadCloser) io.ReadCloser {
	return &lineFrameReader{body: r, lines: bufio.NewReaderSize(r, 4096), memo: f.cache.codecMemo(lineType)}
}

// lineType is the type the memo keeps whole lines under.
var lineType = reflect.TypeFor[*lineFrameReader]()

// jsonSpace is the white space JSON allows between values.
const jsonSpace = " \t\r\n"

// errNotWhole marks a line that is not one whole JSON value.
var errNotWhole = errors.New("not one JSON value")

// lineFrameReader reads a watch body's frames, a line at a time while each
// is one whole JSON value, then through client-go's JSON framer.
type lineFrameReader struct {
	body      io.Closer
	lines     *bufio.Reader
	memo      *memo
	line      []byte
	remaining []byte        // the rest of a frame larger than the caller's buffer
	json      io.ReadCloser // client-go's JSON framer, once a line is not whole
}

// Read reads one frame into data, as client-go's JSON framer does: a
// frame larger than data comes in pieces, each but the last with
// io.ErrShortBuffer.
func (r *lineFrameReader) Read(data []byte) (int, error) {
	if len(r.remaining) > 0 {
		return r.hand(data, r.remaining)
	}
	if r.json != nil {
		return r.json.Read(data)
	}
	for {
		r.line = r.line[:0]
		var err error
		for {
			var part []byte
			part, err = r.lines.ReadSlice('\n')
			r.line = append(r.line, part...)
			if !errors.Is(err, bufio.ErrBufferFull) {
				break
			}
		}
		frame := bytes.Trim(r.line, jsonSpace)
		switch {
		case err == nil && len(frame) == 0:
			continue
		case err == nil && r.whole(frame):
			return r.hand(data, frame)
		case errors.Is(err, io.EOF) && len(frame) == 0:
			return 0, io.EOF
		}
		// Not a whole line: client-go's framer reads on from this line.
		rest := io.Reader(r.lines)
		if err != nil {
			rest = errReader{err}
		}
		r.json = framer.NewJSONFramedReader(readCloser{io.MultiReader(bytes.NewReader(append([]byte(nil), r.line...)), rest), r.body})
		return r.json.Read(data)
	}
}

// whole reports whether frame is one JSON value, once per cassette.
func (r *lineFrameReader) whole(frame []byte) bool {
	e := r.memo.cached(r.memo.frames, frame, func() (e decodedEvent) {
		if !json.Valid(frame) {
			e.err = errNotWhole
		}
		return e
	})
	return e.err == nil
}

// hand copies frame into data; what does not fit is kept for the next
// reads.
func (r *lineFrameReader) hand(data, frame []byte) (int, error) {
	n := copy(data, frame)
	if n < len(frame) {
		r.remaining = append(r.remaining[:0], frame[n:]...)
		return n, io.ErrShortBuffer
	}
	r.remaining = r.remaining[:0]
	return n, nil
}

// Close closes the body.
func (r *lineFrameReader) Close() error { return r.body.Close() }

// readCloser reads from a reader and closes a closer.
type readCloser struct {
	io.Reader
	io.Closer
}

// errReader returns err on every read.
type errReader struct{ err error }

// Read returns the error.
func (e errReader) Read([]byte) (int, error) { return 0, e.err }
