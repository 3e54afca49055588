// Package inproc answers HTTP requests in-process, with no sockets. A
// Transport runs a handler in a goroutine per request. It feeds its answer
// to the client through an in-memory pipe built on channels only. So a
// client and the handler it talks to can both run inside a
// testing/synctest bubble, where timeouts, bookmarks and backoffs pass in
// virtual time. It is the in-process face of the replayer's Server and of
// a verbatim replay.
//
// Typical use:
//
//	client := &http.Client{Transport: inproc.New(handler)}
//	resp, err := client.Get("http://replay/api/v1/pods?watch=true")
package inproc

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// ErrHandlerPanic says the handler panicked while answering a request made
// through a Transport; the request fails with it.
var ErrHandlerPanic = errors.New("replayer: handler panicked")

// Transport is an http.RoundTripper that answers every request with its
// handler, in-process. RoundTrip returns as soon as the handler has written
// its header, so watches stream. Closing the response body (or ending the
// request's context) ends the handler's request context. Close returns
// once the handler has returned, so no goroutine outlives its request.
// Everything it starts blocks only on channels and timers.
type Transport struct {
	h       http.Handler
	latency time.Duration
}

// DefaultLatency is how long a request takes to reach the handler when
// its maker does not say; a real kube-apiserver answers in milliseconds.
// Inside a testing/synctest bubble it is virtual time, the same for every
// request. So two requests one goroutine sends are never answered at one
// instant, as on a real cluster.
const DefaultLatency = time.Millisecond

// New returns a Transport answering with h, each request handed to h
// after latency (0: at once).
func New(h http.Handler, latency time.Duration) *Transport {
	return &Transport{h: h, latency: max(latency, 0)}
}

// RoundTrip answers req with the transport's handler, after the
// transport's latency (or fails when req's context ends first).
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.latency > 0 {
		wait := time.NewTimer(t.latency)
		select {
		case <-wait.C:
		case <-req.Context().Done():
			wait.Stop()
			return nil, req.Context().Err()
		}
	}
	ctx, cancel := context.WithCancel(req.Context())
	pipe := newChanPipe()
	pw := pipe
	rw := &pipeResponse{header: http.Header{}, pw: pw, ready: make(chan struct{})}
	hreq := req.Clone(ctx)
	hreq.RequestURI = req.URL.RequestURI()
	hreq.RemoteAddr = "pipe"
	if hreq.Host == "" {
		hreq.Host = req.URL.Host
	}
	if hreq.Body == nil {
		hreq.Body = http.NoBody
	}
	// The client giving up makes the handler's writes fail, as a closed
	// connection would, so that a handler blocked writing returns.
	stop := context.AfterFunc(req.Context(), func() {
		pw.CloseWithError(context.Cause(req.Context()))
		cancel()
	})
	done := make(chan struct{})
	var failure error // set before done closes
	go func() {
		defer close(done)
		defer cancel()
		defer stop()
		defer hreq.Body.Close()
		defer func() {
			if p := recover(); p != nil {
				failure = fmt.Errorf("%w: %s %s: %v", ErrHandlerPanic, req.Method, req.URL, p)
				pw.CloseWithError(failure)
			}
		}()
		t.h.ServeHTTP(rw, hreq)
		rw.Flush() // a handler that wrote nothing answers 200 with no body
		if err := req.Context().Err(); err != nil {
			pw.CloseWithError(err)
			return
		}
		pw.Close()
	}()
	select {
	case <-rw.ready:
	case <-done:
		select {
		case <-rw.ready:
		default:
			pipe.CloseRead()
			if rw.refused != nil {
				return nil, rw.refused
			}
			if failure == nil {
				failure = fmt.Errorf("%w: %s %s: no answer", ErrHandlerPanic, req.Method, req.URL)
			}
			return nil, failure
		}
	case <-req.Context().Done():
		pw.CloseWithError(req.Context().Err())
		cancel()
		<-done
		return nil, req.Context().Err()
	}
	body := &pipeBody{pr: pipe, cancel: cancel, done: done}
	resp := &http.Response{
		Status:        strconv.Itoa(rw.code) + " " + http.StatusText(rw.code),
		StatusCode:    rw.code,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rw.sent,
		Body:          body,
		ContentLength: -1,
		Request:       req,
	}
	// as net/http's client does: framing headers become fields
	if te := resp.Header.Get("Transfer-Encoding"); te != "" {
		resp.TransferEncoding = []string{te}
		resp.Header.Del("Transfer-Encoding")
	}
	if cl, err := strconv.ParseInt(resp.Header.Get("Content-Length"), 10, 64); err == nil && cl >= 0 {
		resp.ContentLength = cl
	}
	if req.Method == http.MethodHead {
		body.Close()
		resp.Body = http.NoBody
	}
	return resp, nil
}

// pipeResponse is the handler's ResponseWriter: the header is handed to
// RoundTrip when written, the body goes into the pipe.
type pipeResponse struct {
	header http.Header
	pw     *chanPipe
	ready  chan struct{} // closed when the header is written
	wrote  bool
	code   int
	sent   http.Header // the header as written
	// refused, when set, is the error RoundTrip returns in place of an
	// answer (see Refuse); set before the handler returns
	refused error
}

// Header returns the header to be written.
func (p *pipeResponse) Header() http.Header { return p.header }

// WriteHeader hands the status and header to RoundTrip; later calls, and
// informational codes, are ignored.
func (p *pipeResponse) WriteHeader(code int) {
	if p.wrote || p.refused != nil || (code >= 100 && code < 200) {
		return
	}
	p.wrote, p.code, p.sent = true, code, p.header.Clone()
	close(p.ready)
}

// Write writes body bytes; it blocks while the pipe is full and fails once
// the client has closed the body.
func (p *pipeResponse) Write(b []byte) (int, error) {
	if p.refused != nil {
		return 0, p.refused
	}
	if !p.wrote {
		if p.header.Get("Content-Type") == "" && len(b) > 0 {
			p.header.Set("Content-Type", http.DetectContentType(b))
		}
		p.WriteHeader(http.StatusOK)
	}
	return p.pw.Write(b)
}

// Flush writes the header if it is not yet written; written bytes are
// already on their way, the pipe holds none back.
func (p *pipeResponse) Flush() {
	if !p.wrote && p.refused == nil {
		p.WriteHeader(http.StatusOK)
	}
}

// pipeBody is the response body: the pipe's read end. Close ends the
// handler's request and waits for it to return.
type pipeBody struct {
	pr     *chanPipe
	cancel context.CancelFunc
	done   <-chan struct{}
	once   sync.Once
}

// Read reads the answer as the handler writes it.
func (b *pipeBody) Read(p []byte) (int, error) { return b.pr.Read(p) }

// Close cancels the handler's request context, makes its writes fail and
// waits until it has returned.
func (b *pipeBody) Close() error {
	b.once.Do(func() {
		b.cancel()
		b.pr.CloseRead()
		<-b.done
	})
	return nil
}

// Break ends the body of an answer being written through a Transport with
// err after what was written. So would a connection cut in the middle of a
// stream: the client's body read fails with err. It reports false when w
// is not a Transport's.
func Break(w http.ResponseWriter, err error) bool {
	p, ok := w.(*pipeResponse)
	if ok {
		p.pw.CloseWithError(err)
	}
	return ok
}

// Refuse makes the request being answered through a Transport fail with
// err in place of an answer. A dial to a server that is not listening
// fails the same way. RoundTrip returns err once the handler has
// returned, having written nothing. It reports false when w is not a
// Transport's or an answer's header was written already.
func Refuse(w http.ResponseWriter, err error) bool {
	p, ok := w.(*pipeResponse)
	if !ok || p.wrote {
		return false
	}
	p.refused = err
	return true
}
