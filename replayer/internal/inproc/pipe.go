package inproc

import (
	"io"
	"sync"
)

// pipeDepth is how many writes a pipe's writer may run ahead of its reader.
const pipeDepth = 64

// chanPipe is an in-memory pipe whose writer may run up to pipeDepth writes
// ahead of its reader. Each Write is copied and queued. So a handler
// streaming thousands of small watch frames does not wait for the client on
// every one, as it would on io.Pipe. It is built on channels only, so a
// goroutine blocked on it is durably blocked inside a testing/synctest
// bubble.
type chanPipe struct {
	chunks  chan []byte
	wclosed chan struct{} // closed by the writer side: no more chunks
	rclosed chan struct{} // closed by the reader side: writes fail
	wonce   sync.Once
	ronce   sync.Once
	werr    error // set before wclosed closes
	rest    []byte
}

func newChanPipe() *chanPipe {
	return &chanPipe{chunks: make(chan []byte, pipeDepth), wclosed: make(chan struct{}), rclosed: make(chan struct{})}
}

// Write queues a copy of b; it blocks while the queue is full, and fails
// once either side has closed.
func (p *chanPipe) Write(b []byte) (int, error) {
	select {
	case <-p.rclosed:
		return 0, io.ErrClosedPipe
	case <-p.wclosed:
		return 0, io.ErrClosedPipe
	default:
	}
	if len(b) == 0 {
		return 0, nil
	}
	c := append([]byte(nil), b...)
	select {
	case p.chunks <- c:
		return len(b), nil
	case <-p.rclosed:
		return 0, io.ErrClosedPipe
	case <-p.wclosed:
		return 0, io.ErrClosedPipe
	}
}

// CloseWithError ends the stream: the reader gets what was queued, then
// err (io.EOF when err is nil).
func (p *chanPipe) CloseWithError(err error) error {
	if err == nil {
		err = io.EOF
	}
	p.wonce.Do(func() {
		p.werr = err
		close(p.wclosed)
	})
	return nil
}

// Close ends the stream with io.EOF.
func (p *chanPipe) Close() error { return p.CloseWithError(nil) }

// Read returns queued bytes, waiting for some while the stream is open.
func (p *chanPipe) Read(b []byte) (int, error) {
	if len(p.rest) == 0 {
		select {
		case <-p.rclosed:
			return 0, io.ErrClosedPipe
		default:
		}
		select {
		case c := <-p.chunks:
			p.rest = c
		case <-p.rclosed:
			return 0, io.ErrClosedPipe
		case <-p.wclosed:
			select {
			case c := <-p.chunks: // what was queued before the end
				p.rest = c
			default:
				return 0, p.werr
			}
		}
	}
	n := copy(b, p.rest)
	p.rest = p.rest[n:]
	return n, nil
}

// CloseRead makes later reads and writes fail.
func (p *chanPipe) CloseRead() {
	p.ronce.Do(func() { close(p.rclosed) })
}
