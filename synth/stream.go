package synth

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/lwreplay/lwreplay/cassette"
)

// WriteCassette generates the cassette Generate returns for o, and
// writes it to path (which must end in .yaml). It writes it byte for
// byte as Generate and File.Save would, without holding the events in
// memory. Each resource's initial LIST items and watch frames go to
// spill files as they are made. The spill files are in a temporary
// directory beside path, removed at the end. The cassette is written
// from them with a cassette.Writer. Memory follows the objects that
// exist at a time (and one LIST page), not the events. It returns how
// many interactions it wrote; on an error nothing is left behind.
//
// Options that fail Validate (with Size.MemoryBytes as the memory
// estimate) are refused before anything is generated or written.
func WriteCassette(path string, o GenerateOptions) (n int, err error) {
	if err := o.validate(true); err != nil {
		return 0, err
	}
	w, err := cassette.Create(path)
	if err != nil {
		return 0, err
	}
	defer func() {
		if err != nil {
			w.Abort()
		}
	}()
	dir, err := os.MkdirTemp(filepath.Dir(path), "."+filepath.Base(path)+".spill-*")
	if err != nil {
		return 0, fmt.Errorf("synth: %w", err)
	}
	sp := &spill{dir: dir, o: o.cassetteOptions()}
	defer func() {
		if cerr := sp.close(); err == nil && cerr != nil {
			err = fmt.Errorf("synth: %w", cerr)
		}
	}()
	b := NewBuilder()
	b.spill = sp
	generate(o, b)
	if err := b.writeSpilled(w, sp.o); err != nil {
		return 0, err
	}
	n = w.Len()
	return n, w.Close()
}

// spill holds a streaming builder's spill files.
type spill struct {
	dir   string
	o     CassetteOptions
	files []*os.File
}

// resourceSpill is one resource's spill: its initial LIST items, one a
// line, and its watch stream's frames.
type resourceSpill struct {
	list      *os.File
	listItems int
	watch     *os.File
	buf       *bufio.Writer
	stream    *watchStream
}

func (s *spill) create(name string) (*os.File, error) {
	f, err := os.Create(filepath.Join(s.dir, strconv.Itoa(len(s.files))+"-"+name))
	if err != nil {
		return nil, err
	}
	s.files = append(s.files, f)
	return f, nil
}

// open spills r's current state as its initial LIST, in key order, and
// starts its watch stream.
func (s *spill) open(r *resourceLog) (*resourceSpill, error) {
	list, err := s.create(r.gvr.Resource + ".list")
	if err != nil {
		return nil, err
	}
	lw := bufio.NewWriterSize(list, 256<<10)
	keys := sortedKeys(r.state)
	for _, k := range keys {
		lw.Write(r.state[k])
		lw.WriteByte('\n')
		r.state[k] = nil // listed: only the key matters now
	}
	if err := lw.Flush(); err != nil {
		return nil, err
	}
	watch, err := s.create(r.gvr.Resource + ".watch")
	if err != nil {
		return nil, err
	}
	buf := bufio.NewWriterSize(watch, 256<<10)
	return &resourceSpill{list: list, listItems: len(keys), watch: watch, buf: buf,
		stream: newWatchStream(r.resource(), s.o.BookmarkEvery, trafficStart, buf)}, nil
}

// add writes c's frames to the watch spill.
func (rs *resourceSpill) add(c change) error {
	rs.stream.add(c)
	return rs.stream.err
}

// close closes and removes the spill files and their directory.
func (s *spill) close() error {
	var errs []error
	for _, f := range s.files {
		if err := f.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
			errs = append(errs, err)
		}
	}
	return errors.Join(append(errs, os.RemoveAll(s.dir))...)
}

// writeSpilled writes a streaming builder's cassette to w. Per resource,
// it writes its LIST pages read back from the list spill. Then it
// streams its watch from the watch spill.
func (b *Builder) writeSpilled(w *cassette.Writer, o CassetteOptions) error {
	if b.err != nil {
		return b.err
	}
	b.Snapshot()
	if b.err != nil {
		return b.err
	}
	for _, r := range b.resources {
		res, rs := r.resource(), r.spilled
		path := res.CollectionPath("")
		listRV := strconv.FormatInt(r.snapRV, 10)
		lr := bufio.NewReaderSize(io.NewSectionReader(rs.list, 0, 1<<62), 256<<10)
		next := func() ([]byte, error) {
			line, err := lr.ReadBytes('\n')
			if err != nil {
				return nil, fmt.Errorf("list spill %s: %w", rs.list.Name(), err)
			}
			return line[:len(line)-1], nil
		}
		if err := addListPages(w.Add, res, path, listRV, rs.listItems, next, o.PageSize, trafficStart); err != nil {
			return fmt.Errorf("synth: %s: %w", r.kind, err)
		}
		rs.stream.end(b.rv, b.now)
		if rs.stream.err == nil {
			rs.stream.err = rs.buf.Flush()
		}
		if rs.stream.err != nil {
			return fmt.Errorf("synth: %s: watch spill: %w", r.kind, rs.stream.err)
		}
		i := rs.stream.interaction(path, listRV)
		if err := w.AddStream(i, io.NewSectionReader(rs.watch, 0, rs.stream.size)); err != nil {
			return err
		}
	}
	return nil
}
