package recorder

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
)

// grew is called after an entry's sealable bytes grew. Past the maximum
// size, it asks the flush loop for a rotation. Past twice that (the
// loop is behind), it rotates at once, making the reader wait, so that
// memory stays bounded.
func (r *Recorder) grew() {
	s := r.size.Load()
	if s <= r.opts.maxSize {
		return
	}
	if s > 2*r.opts.maxSize {
		r.setErr(r.rotateIfFull())
		return
	}
	select {
	case r.rotate <- struct{}{}:
	default:
	}
}

// rotateIfFull rotates when the current file is over the maximum size.
func (r *Recorder) rotateIfFull() error {
	r.saveMu.Lock()
	defer r.saveMu.Unlock()
	if r.size.Load() <= r.opts.maxSize {
		return nil
	}
	return r.rotateLocked()
}

// rotateLocked writes the current file's finished answers and the
// complete frames of its splittable watches out for good. It goes on in
// the next file with what is still open. Called with saveMu held.
func (r *Recorder) rotateLocked() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	path := r.cur
	var views []cassette.Interaction
	var next []*entry
	for _, e := range r.entries {
		e.mu.Lock()
		switch {
		case e.final && !e.kept: // not recorded
		case e.final:
			views = append(views, e.it)
			r.size.Add(-e.counted)
			e.counted = 0
		default:
			if part, ok := e.cut(); ok {
				views = append(views, part)
			}
			next = append(next, e)
		}
		e.mu.Unlock()
	}
	r.entries = next
	if len(views) == 0 {
		r.mu.Unlock()
		return nil
	}
	r.index++
	r.cur = rotatedName(r.path, r.index)
	r.gen.Add(1)
	r.mu.Unlock()
	sealed := r.fileOf(path, views)
	var errs []error
	if err := r.save(sealed); err != nil {
		r.mu.Lock()
		r.unsaved = append(r.unsaved, sealed)
		r.mu.Unlock()
		errs = append(errs, err)
	}
	// The next file at once: what moved there was in the last one written.
	errs = append(errs, r.flushLocked())
	return errors.Join(errs...)
}

// rotatedName returns the name of file n after path (cassette.RotatedName:
// the names by which loaders know a recording's parts).
func rotatedName(path string, n int) string { return cassette.RotatedName(path, n) }

// flushIfChanged writes the current file if anything was recorded since it
// was last written.
func (r *Recorder) flushIfChanged() error {
	r.saveMu.Lock()
	defer r.saveMu.Unlock()
	r.mu.Lock()
	pending := len(r.unsaved) > 0
	r.mu.Unlock()
	if r.gen.Load() == r.saved && !pending {
		return nil
	}
	return r.flushLocked()
}

// flushLocked writes files a rotation could not write, then the current
// file. Called with saveMu held.
func (r *Recorder) flushLocked() error {
	var errs []error
	r.mu.Lock()
	pending := r.unsaved
	r.unsaved = nil
	r.mu.Unlock()
	for k, f := range pending {
		if err := r.save(f); err != nil {
			r.mu.Lock()
			r.unsaved = append(r.unsaved, pending[k:]...)
			r.mu.Unlock()
			errs = append(errs, err)
			break
		}
	}
	now := time.Now()
	r.mu.Lock()
	gen := r.gen.Load()
	path := r.cur
	views := make([]cassette.Interaction, 0, len(r.entries))
	for _, e := range r.entries {
		if v, ok := e.snapshot(now); ok {
			views = append(views, v)
		}
	}
	r.mu.Unlock()
	if err := r.save(r.fileOf(path, views)); err != nil {
		errs = append(errs, err)
	} else {
		r.saved = gen
	}
	return errors.Join(errs...)
}

// fileOf returns the cassette file at path holding views. Each
// interaction is passed through the before-save hooks, on a copy of
// its bodies: a hook changes what is written, never what was
// recorded.
func (r *Recorder) fileOf(path string, views []cassette.Interaction) *cassette.File {
	f := &cassette.File{Path: path, Interactions: make([]cassette.Interaction, 0, len(views))}
	for _, i := range views {
		if len(r.opts.beforeSave) > 0 {
			i.Body, i.RequestBody = bytes.Clone(i.Body), bytes.Clone(i.RequestBody)
		}
		for _, hook := range r.opts.beforeSave {
			hook(&i)
		}
		f.Add(i)
	}
	return f
}

// save writes f to its path and notes the file.
func (r *Recorder) save(f *cassette.File) error {
	if err := write(f); err != nil {
		return fmt.Errorf("%w %s: %w", ErrWrite, f.Path, err)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, p := range r.files {
		if p == f.Path {
			return nil
		}
	}
	r.files = append(r.files, f.Path)
	return nil
}

// write writes f to its path in the bytes f.Save writes. Each response body
// is streamed into its literal block as it is (cassette.Writer.AddStream).
// It is not analysed and emitted byte by byte by the YAML encoder, which
// for a watch body of many megabytes is most of a save's cost.
func write(f *cassette.File) error {
	w, err := cassette.Create(f.Path)
	if err != nil {
		return err
	}
	for _, i := range f.Interactions {
		if len(i.Body) == 0 {
			err = w.Add(i)
		} else {
			err = w.AddStream(i, io.NewSectionReader(bytes.NewReader(i.Body), 0, int64(len(i.Body))))
		}
		if err != nil {
			return err
		}
	}
	return w.Close()
}
