package cassette

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
)

// lazyBody is a response body left in its cassette file (WithLazyBodies):
// the lines of a literal block, read back when asked.
type lazyBody struct {
	block blockBody
	stamp *fileStamp
}

// BodySize returns the length of the response body, read or left in its
// file.
func (i *Interaction) BodySize() int64 {
	if i.lazy != nil {
		return i.lazy.block.size
	}
	return int64(len(i.Body))
}

// BodyInFile reports whether the response body was left in the cassette
// file (WithLazyBodies) and Body is nil: OpenBody and ReadBody read it.
func (i *Interaction) BodyInFile() bool { return i.lazy != nil }

// OpenBody returns a reader of the response body: Body, or the bytes a
// load with WithLazyBodies left in the cassette file, read as they are
// asked for. A file changed since it was loaded is an error naming it.
func (i *Interaction) OpenBody() (io.ReadCloser, error) {
	if i.lazy == nil {
		return io.NopCloser(bytes.NewReader(i.Body)), nil
	}
	return i.lazy.open()
}

// ReadBody returns the response body: Body, or the bytes a load with
// WithLazyBodies left in the cassette file.
func (i *Interaction) ReadBody() ([]byte, error) {
	if i.lazy == nil {
		return i.Body, nil
	}
	rc, err := i.lazy.open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	out := make([]byte, 0, i.lazy.block.size)
	buf := bytes.NewBuffer(out)
	if _, err := buf.ReadFrom(rc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

func (l *lazyBody) open() (io.ReadCloser, error) {
	f, err := os.Open(l.stamp.path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: body left in the file: %v", ErrFormat, l.stamp.path, err)
	}
	st, err := f.Stat()
	if err == nil && (st.Size() != l.stamp.size || st.ModTime().UnixNano() != l.stamp.mod) {
		err = fmt.Errorf("the file changed since it was loaded")
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%w: %s: %v", ErrFormat, l.stamp.path, err)
	}
	b := &l.block
	if b.quoted {
		return readCloser{&unquoter{in: bufio.NewReaderSize(io.NewSectionReader(f, b.start, b.end-b.start), 256<<10)}, f}, nil
	}
	// The lines as blockReader reads them end in a break each. The block's
	// size, less the blank lines kept after it, cuts a chomped or missing
	// last break.
	var r io.Reader = &blockReader{in: bufio.NewReaderSize(io.NewSectionReader(f, b.start, b.end-b.start), 256<<10), indent: b.indent}
	r = io.LimitReader(r, b.size-int64(b.trailing))
	if b.trailing > 0 {
		r = io.MultiReader(r, bytes.NewReader(bytes.Repeat([]byte("\n"), b.trailing)))
	}
	return readCloser{r, f}, nil
}

type readCloser struct {
	io.Reader
	io.Closer
}

// blockReader reads a literal block's lines as its content. Each is
// without the block's indentation and ends in a line break. Blank lines
// are line breaks. Chomping is left to the caller.
type blockReader struct {
	in     *bufio.Reader
	indent int
	pend   []byte // content not yet returned
	inLine bool   // inside a line longer than the buffer
	err    error
}

func (r *blockReader) Read(p []byte) (int, error) {
	for len(r.pend) == 0 {
		if r.err != nil {
			return 0, r.err
		}
		r.fill()
	}
	n := copy(p, r.pend)
	r.pend = r.pend[n:]
	return n, nil
}

// fill reads one line (or a long line's next piece) into pend.
func (r *blockReader) fill() {
	line, err := r.in.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
		if !r.inLine {
			line = trimIndent(line, r.indent)
		}
		r.inLine, r.pend = true, line
		return
	case err == io.EOF && len(line) == 0:
		r.err = io.EOF
		return
	case err != nil && err != io.EOF:
		r.err = err
		return
	}
	content := bytes.TrimRight(line, "\r\n")
	if !r.inLine {
		content = trimIndent(content, r.indent) // a blank line: empty
	}
	r.inLine = false
	r.pend = append(content, '\n')
}

func trimIndent(line []byte, n int) []byte {
	if len(line) < n {
		return line[len(line):]
	}
	return line[n:]
}

// unquoter reads a single-quoted YAML scalar's content: each pair of
// quote characters is one.
type unquoter struct {
	in   *bufio.Reader
	pend []byte
	skip bool // the next byte is the second quote of a pair
	err  error
}

func (u *unquoter) Read(p []byte) (int, error) {
	for len(u.pend) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		if u.skip {
			u.skip = false
			if _, err := u.in.ReadByte(); err != nil {
				u.err = err
				continue
			}
		}
		frag, err := u.in.ReadSlice('\'')
		switch {
		case err == nil:
			u.skip = true
		case err != bufio.ErrBufferFull:
			u.err = err
		}
		u.pend = frag
	}
	n := copy(p, u.pend)
	u.pend = u.pend[n:]
	return n, nil
}
