package history

import (
	"bufio"
	"errors"
	"fmt"
	"os"
)

// A history of a large recording keeps its objects' JSON out of the Go
// heap: once the objects a build has read hold more than spillAt bytes of
// JSON, their JSON (and every later object's) is written to a temporary
// file as it is read, and when the build ends the file is mapped into
// memory read-only and each Object.Raw points into the mapping. The file
// is removed from its directory at once (it lives while the process maps
// it), so nothing is left behind; the kernel pages the JSON in as a
// replay reads it and can drop it again, so the resident memory of a
// history follows what is served, not the recording's size.

// spillAt is the JSON size from which a build keeps objects' JSON in a
// mapped file.
var spillAt int64 = 64 << 20

// ErrSpill is wrapped by errors about the temporary file a large history
// keeps its objects' JSON in.
var ErrSpill = errors.New("keeping object JSON in a temporary file")

// blobStore moves objects' JSON to a temporary file once they hold more
// than spillAt bytes. The zero value is ready; it is used by one goroutine.
type blobStore struct {
	refs  []blobRef // every object taken, in order
	size  int64     // JSON bytes taken
	file  *os.File  // nil until the store spills
	w     *bufio.Writer
	off   int64
	err   error
	spill bool
}

// blobRef is an object whose JSON is (or will be) in the file at off.
type blobRef struct {
	o   *Object
	off int64
	n   int
}

// take tracks objects read by the build, and moves their JSON to the file
// once the store spills.
func (s *blobStore) take(objs ...*Object) {
	if s == nil || s.err != nil {
		return
	}
	for _, o := range objs {
		if o == nil {
			continue
		}
		s.refs = append(s.refs, blobRef{o: o, off: -1, n: len(o.Raw)})
		s.size += int64(len(o.Raw))
		if s.spill {
			s.write(&s.refs[len(s.refs)-1])
		}
	}
	if !s.spill && s.size > spillAt {
		s.start()
	}
}

// start creates the file and writes the JSON taken so far.
func (s *blobStore) start() {
	f, err := os.CreateTemp("", "lwreplay-history-*.json")
	if err != nil {
		s.err = err
		return
	}
	s.file, s.w, s.spill = f, bufio.NewWriterSize(f, 1<<20), true
	if err := removeOpen(f); err != nil {
		s.err = err
		return
	}
	for k := range s.refs {
		s.write(&s.refs[k])
	}
}

// write moves one object's JSON to the file.
func (s *blobStore) write(r *blobRef) {
	if s.err != nil {
		return
	}
	if _, err := s.w.Write(r.o.Raw); err != nil {
		s.err = err
		return
	}
	r.off, s.off = s.off, s.off+int64(r.n)
	r.o.Raw = nil
}

// finish maps the file and points each object's Raw into it. Without a
// spill it only lets go of what it tracked.
func (s *blobStore) finish() error {
	if s == nil {
		return nil
	}
	refs := s.refs
	s.refs = nil
	if !s.spill {
		return s.fail()
	}
	defer s.file.Close()
	if s.err == nil {
		s.err = s.w.Flush()
	}
	if s.err != nil {
		return s.fail()
	}
	data, err := mapFile(s.file, s.off)
	if err != nil {
		s.err = err
		return s.fail()
	}
	for _, r := range refs {
		r.o.Raw = data[r.off : r.off+int64(r.n) : r.off+int64(r.n)]
	}
	return nil
}

func (s *blobStore) fail() error {
	if s.err == nil {
		return nil
	}
	if s.file != nil {
		s.file.Close()
		os.Remove(s.file.Name())
	}
	return fmt.Errorf("%w: %v", ErrSpill, s.err)
}
