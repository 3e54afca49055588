package cassette

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v4"
	vcr "gopkg.in/dnaeon/go-vcr.v4/pkg/cassette"
)

// Writer writes a cassette file one interaction at a time, without
// holding the whole document in memory. It writes the bytes go-vcr's own
// Save writes for the same interactions. It writes under a temporary name
// in the target's directory, and renames the file into place on Close.
// (The name does not end in .yaml, so LoadAll never picks it up.) On any
// error, and on Abort, the temporary file is removed and nothing is left
// behind.
type Writer struct {
	path string
	tmp  *os.File
	w    *bufio.Writer
	n    int   // interactions written
	err  error // the first error; the temporary file is gone once set
	done bool  // Close or Abort was called
}

// errWriterDone is the error of a Writer used after Close or Abort.
var errWriterDone = errors.New("cassette writer already closed")

// Create starts writing a cassette to path, which must end in .yaml,
// creating its directory if needed.
func Create(path string) (*Writer, error) {
	if !strings.HasSuffix(path, ".yaml") {
		return nil, fmt.Errorf("%w: %s: a cassette file name must end in .yaml", ErrFormat, path)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("save cassette %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("save cassette %s: %w", path, err)
	}
	w := &Writer{path: path, tmp: tmp, w: bufio.NewWriterSize(tmp, 256<<10)}
	// go-vcr writes "---" before the marshalled cassette, whose first
	// field is its format version.
	w.write([]byte("---\nversion: " + fmt.Sprint(vcr.CassetteFormatVersion) + "\n"))
	if w.err != nil {
		return nil, w.err
	}
	return w, nil
}

// Path returns the path the cassette is written to.
func (w *Writer) Path() string { return w.path }

// Len returns how many interactions have been written.
func (w *Writer) Len() int { return w.n }

// fail records the first error and removes the temporary file.
func (w *Writer) fail(err error) {
	if w.err != nil {
		return
	}
	w.err = fmt.Errorf("save cassette %s: %w", w.path, err)
	w.tmp.Close()
	os.Remove(w.tmp.Name())
}

func (w *Writer) write(b []byte) {
	if w.err != nil {
		return
	}
	if _, err := w.w.Write(b); err != nil {
		w.fail(err)
	}
}

// usable returns the error that stops a write: an earlier failure, or a
// Writer already closed.
func (w *Writer) usable() error {
	if w.err != nil {
		return w.err
	}
	if w.done {
		return fmt.Errorf("save cassette %s: %w", w.path, errWriterDone)
	}
	return nil
}

// startItem writes the sequence's key before the first interaction.
func (w *Writer) startItem() {
	if w.n == 0 {
		w.write([]byte("interactions:\n"))
	}
}

// Add writes an interaction whose body is held in memory.
func (w *Writer) Add(i Interaction) error {
	if err := w.usable(); err != nil {
		return err
	}
	item, err := w.marshalItem(toVCR(i))
	if err != nil {
		w.fail(fmt.Errorf("interaction %d: %w", w.n, err))
		return w.err
	}
	w.startItem()
	w.write(item)
	w.n++
	return w.err
}

// AddStream writes an interaction whose response body is read from body
// (i.Body is ignored): a large watch stream, say. The body is streamed
// from the reader into a literal block scalar, as go-vcr's encoder writes
// it, without being held in memory. YAML cannot hold some bodies in a
// literal block as is: control characters, a leading blank, several
// trailing line breaks, ... Such a body is read into memory and encoded
// as go-vcr would encode it.
func (w *Writer) AddStream(i Interaction, body *io.SectionReader) error {
	if err := w.usable(); err != nil {
		return err
	}
	shape, err := literalShape(body)
	if err != nil {
		w.fail(fmt.Errorf("interaction %d: read body: %w", w.n, err))
		return w.err
	}
	if shape == notLiteral {
		return w.addWhole(i, body)
	}
	// Marshal the interaction with a probe body of the same shape, then
	// write the real body's lines where the probe's are, at the probe's
	// indentation.
	probe := probeBody
	if shape == literalStrip {
		probe += probeBody[:len(probeBody)-1]
	}
	i.Body = nil
	vi := toVCR(i)
	vi.Response.Body = probe
	vi.Response.ContentLength = body.Size()
	item, err := w.marshalItem(vi)
	if err != nil {
		w.fail(fmt.Errorf("interaction %d: %w", w.n, err))
		return w.err
	}
	before, indent, after, ok := splitProbe(item, probe)
	if !ok { // not written as a literal block after all: encode in memory
		return w.addWhole(i, body)
	}
	w.startItem()
	w.write(before)
	if w.err == nil {
		if err := writeLiteralLines(w.w, indent, io.NewSectionReader(body, 0, body.Size())); err != nil {
			w.fail(fmt.Errorf("interaction %d: body: %w", w.n, err))
		}
	}
	w.write(after)
	w.n++
	return w.err
}

// addWhole writes i with its body read whole from body.
func (w *Writer) addWhole(i Interaction, body *io.SectionReader) error {
	data := make([]byte, body.Size())
	if _, err := body.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		w.fail(fmt.Errorf("interaction %d: read body: %w", w.n, err))
		return w.err
	}
	i.Body = data
	return w.Add(i)
}

// itemDoc wraps one interaction as go-vcr's cassette holds it, so that
// yaml marshals it at the indentation it has in a whole cassette.
type itemDoc struct {
	Interactions []*vcr.Interaction `yaml:"interactions"`
}

// marshalItem returns the YAML of vi as the next item of the cassette's
// interactions sequence.
func (w *Writer) marshalItem(vi *vcr.Interaction) ([]byte, error) {
	vi.ID = w.n
	data, err := yaml.Marshal(itemDoc{Interactions: []*vcr.Interaction{vi}})
	if err != nil {
		return nil, err
	}
	item, ok := bytes.CutPrefix(data, []byte("interactions:\n"))
	if !ok {
		return nil, fmt.Errorf("unexpected YAML for an interaction: %.40q", data)
	}
	return item, nil
}

// Close finishes the cassette and renames it into place. After an error
// nothing is left behind.
func (w *Writer) Close() error {
	if err := w.usable(); err != nil {
		return err
	}
	w.done = true
	if w.n == 0 {
		w.write([]byte("interactions: []\n"))
	}
	if w.err != nil {
		return w.err
	}
	for _, step := range []func() error{w.w.Flush, func() error { return w.tmp.Chmod(0o644) }, w.tmp.Sync, w.tmp.Close} {
		if err := step(); err != nil {
			w.fail(err)
			return w.err
		}
	}
	if err := os.Rename(w.tmp.Name(), w.path); err != nil {
		os.Remove(w.tmp.Name())
		w.err = fmt.Errorf("save cassette %s: %w", w.path, err)
		return w.err
	}
	return nil
}

// Abort stops writing and removes the temporary file; the target is left
// as it was. It does nothing after Close or an earlier error.
func (w *Writer) Abort() {
	if w.done || w.err != nil {
		return
	}
	w.done = true
	w.fail(errWriterDone)
}
