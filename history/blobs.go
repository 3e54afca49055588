package history

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// A history of a large recording keeps its objects' JSON out of the Go
// heap. Once the objects a build has read hold more than spillAt bytes of
// JSON, their JSON is written to a temporary file. So is every later
// object's, as it is read. When the build ends, the file is mapped into
// memory read-only, and each Object.Raw points into it. The file is
// removed from its directory at once; it lives while the process maps it.
// So nothing is left behind. The kernel pages the JSON in as a replay
// reads it, and can drop it again. So the resident memory of a history
// follows what is served, not the recording's size.
//
// The file is an economy, never a condition. When it cannot be made,
// written (a full disk) or mapped, the JSON not yet in it stays in the
// heap. What is in it is read back. The build goes on, using memory.

// spillAt is the JSON size from which a build keeps objects' JSON in a
// mapped file.
var spillAt int64 = 64 << 20

// createSpill makes the temporary file (a test makes it fail).
var createSpill = func() (*os.File, error) { return os.CreateTemp("", "lwreplay-history-*.json") }

// ErrSpill is wrapped by the error of a build that could not read back
// the objects' JSON it had moved to its temporary file.
var ErrSpill = errors.New("reading object JSON back from a temporary file")

// chunkBytes is how much JSON the store gathers before writing it.
const chunkBytes = 1 << 20

// blobStore moves objects' JSON to a temporary file once they hold more
// than spillAt bytes. The zero value is ready; it is used by one goroutine.
type blobStore struct {
	refs    []blobRef // every object taken, in order
	size    int64     // JSON bytes taken
	file    *os.File  // nil until the store spills
	chunk   []byte    // JSON gathered, not yet written
	pending int       // refs[pending:] are in chunk
	off     int64     // bytes written to the file
	spill   bool      // writing to the file
	broken  bool      // the file failed: JSON stays in the heap
}

// blobRef is an object whose JSON is in the file at off (-1: not there).
type blobRef struct {
	o   *Object
	off int64
	n   int
}

// take tracks objects read by the build, and moves their JSON to the file
// once the store spills.
func (s *blobStore) take(objs ...*Object) {
	if s == nil {
		return
	}
	for _, o := range objs {
		if o == nil {
			continue
		}
		s.refs = append(s.refs, blobRef{o: o, off: -1, n: len(o.Raw)})
		s.size += int64(len(o.Raw))
		if s.spill {
			s.gather(len(s.refs) - 1)
		}
	}
	if !s.spill && !s.broken && s.size > spillAt {
		s.start()
	}
}

// start creates the file and moves the JSON taken so far to it.
func (s *blobStore) start() {
	f, err := createSpill()
	if err != nil {
		s.broken = true
		return
	}
	s.file, s.spill, s.chunk = f, true, make([]byte, 0, chunkBytes)
	if removeOpen(f) != nil {
		s.abandon()
		return
	}
	s.pending = 0
	for k := range s.refs {
		s.gather(k)
	}
}

// gather adds ref k's JSON to the chunk, writing the chunk when full.
func (s *blobStore) gather(k int) {
	if !s.spill {
		return
	}
	if len(s.chunk) > 0 && len(s.chunk)+s.refs[k].n > chunkBytes {
		if s.flush(k); !s.spill {
			return
		}
	}
	s.chunk = append(s.chunk, s.refs[k].o.Raw...)
}

// flush writes the chunk, refs[pending:upto]'s JSON; once it is written
// their Raw leaves the heap.
func (s *blobStore) flush(upto int) {
	if len(s.chunk) == 0 || !s.spill {
		s.pending = upto
		return
	}
	if _, err := s.file.Write(s.chunk); err != nil {
		s.abandon() // refs[pending:] keep their Raw
		return
	}
	for k := s.pending; k < upto; k++ {
		r := &s.refs[k]
		r.off, s.off = s.off, s.off+int64(r.n)
		r.o.Raw = nil
	}
	s.chunk, s.pending = s.chunk[:0], upto
}

// settle writes the JSON gathered so far. It reports whether no object
// taken keeps its JSON in the heap: the store spills, and the file has not
// failed.
func (s *blobStore) settle() bool {
	if s == nil || !s.spill {
		return false
	}
	s.flush(len(s.refs))
	return s.spill
}

// abandon stops spilling: what is in the file stays there (finish reads it
// back or maps it), the rest in the heap.
func (s *blobStore) abandon() {
	s.spill, s.broken, s.chunk = false, true, nil
}

// finish maps the file and points each object's Raw into it; without a
// spill it only lets go of what it tracked. Only reading back JSON the file
// holds can fail.
func (s *blobStore) finish() error {
	if s == nil {
		return nil
	}
	if s.spill {
		s.flush(len(s.refs))
	}
	refs := s.refs
	s.refs = nil
	if s.file == nil {
		return nil
	}
	defer func() {
		s.file.Close()
		os.Remove(s.file.Name()) // already gone but where names cannot be removed while open
	}()
	if s.off == 0 {
		return nil
	}
	data, err := mapFile(s.file, s.off)
	if err != nil {
		if data, err = readBack(s.file, s.off); err != nil {
			return fmt.Errorf("%w: %v", ErrSpill, err)
		}
	}
	for _, r := range refs {
		if r.off >= 0 {
			r.o.Raw = data[r.off : r.off+int64(r.n) : r.off+int64(r.n)]
		}
	}
	return nil
}

// readBack reads the first size bytes of f into memory.
func readBack(f *os.File, size int64) ([]byte, error) {
	data := make([]byte, size)
	_, err := io.ReadFull(io.NewSectionReader(f, 0, size), data)
	return data, err
}
