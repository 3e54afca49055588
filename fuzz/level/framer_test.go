package level

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/util/framer"
)

// readFrames reads frames from r as client-go's streaming decoder does,
// with a buffer of size bytes, until an error, and returns them and the
// error.
func readFrames(r io.Reader, size int) ([]string, error) {
	buf := make([]byte, size)
	var frames []string
	var cur []byte
	for {
		n, err := r.Read(buf)
		cur = append(cur, buf[:n]...)
		switch {
		case errors.Is(err, io.ErrShortBuffer):
			continue
		case err != nil:
			return frames, err
		}
		frames = append(frames, string(cur))
		cur = nil
	}
}

var errCut = errors.New("connection reset by peer")

func TestLineFrameReader(t *testing.T) {
	t.Parallel()
	a := `{"type":"ADDED","object":{"kind":"ConfigMap","metadata":{"name":"a"}}}`
	b := `{"type":"MODIFIED","object":{"kind":"ConfigMap","metadata":{"name":"b"}}}`
	tests := []struct {
		name      string
		body      func() io.Reader
		wantLines int // lines the memo keeps
	}{
		{name: "line framer - one frame a line - the JSON framer's frames - pass",
			body: func() io.Reader { return strings.NewReader(a + "\n" + b + "\n") }, wantLines: 2},
		{name: "line framer - blank lines and spaces - skipped as JSON white space - pass",
			body: func() io.Reader { return strings.NewReader("\n " + a + " \r\n\n\t" + b + "\n") }, wantLines: 2},
		{name: "line framer - garbled frame, as garble-frame sends - the JSON framer's error - fail",
			body: func() io.Reader {
				return strings.NewReader(a + "\n" + `{"type":"MODIFIED","object":{` + "\n" + b + "\n")
			}, wantLines: 2},
		{name: "line framer - body ends inside a frame - the JSON framer's unexpected EOF - fail",
			body: func() io.Reader { return strings.NewReader(a + "\n" + b[:20]) }, wantLines: 1},
		{name: "line framer - body cut by an error inside a frame - the JSON framer's error - fail",
			body: func() io.Reader { return io.MultiReader(strings.NewReader(a+"\n"+b[:20]), errReader{errCut}) }, wantLines: 1},
		{name: "line framer - body cut by an error between frames - the JSON framer's error - fail",
			body: func() io.Reader { return io.MultiReader(strings.NewReader(a+"\n"), errReader{errCut}) }, wantLines: 1},
		{name: "line framer - two values on a line - the JSON framer's frames - pass",
			body: func() io.Reader { return strings.NewReader(a + b + "\n" + a + "\n") }, wantLines: 1},
		{name: "line framer - a value over several lines - the JSON framer's frame - pass",
			body: func() io.Reader { return strings.NewReader("{\n\"type\": \"ADDED\"\n}\n" + a + "\n") }, wantLines: 1},
		{name: "line framer - not JSON - the JSON framer's error - fail",
			body: func() io.Reader { return strings.NewReader("hello\n" + a + "\n") }, wantLines: 1},
	}
	for _, tc := range tests {
		for _, size := range []int{4096, 16} {
			t.Run(fmt.Sprintf("%s (buffer %d)", tc.name, size), func(t *testing.T) {
				t.Parallel()
				want, wantErr := readFrames(framer.NewJSONFramedReader(io.NopCloser(tc.body())), size)
				d := NewCache()
				r := memoFramer{cache: d}.NewFrameReader(io.NopCloser(tc.body()))
				got, err := readFrames(r, size)
				if !slices.Equal(got, want) {
					t.Errorf("frames: got %q, want %q as client-go's JSON framer", got, want)
				}
				if fmt.Sprintf("%T %v", err, err) != fmt.Sprintf("%T %v", wantErr, wantErr) {
					t.Errorf("error: got %T %v, want %T %v as client-go's JSON framer", err, err, wantErr, wantErr)
				}
				if n := d.CodecEntries(); n != tc.wantLines {
					t.Errorf("kept lines: got %d, want %d", n, tc.wantLines)
				}
			})
		}
	}
}
