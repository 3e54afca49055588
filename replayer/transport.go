package replayer

import (
	"net/http"

	"github.com/lwreplay/lwreplay/replayer/internal/inproc"
)

// ErrHandlerPanic says the server's handler panicked while answering a
// request made through Transport; the request fails with it.
var ErrHandlerPanic = inproc.ErrHandlerPanic

// Transport returns an http.RoundTripper that answers every request
// in-process, with no sockets. Each request runs the server's handler in
// a goroutine, after the server's latency (WithLatency). Its answer is
// fed through an in-memory pipe. RoundTrip returns as soon as the handler
// has written its header, so watches stream. Closing the response body
// (or ending the request's context) ends the handler's request context.
// Close returns once the handler has returned, so no goroutine outlives
// its request. Everything it starts blocks only on channels and timers.
// So clients using it run inside a testing/synctest bubble, where watch
// timeouts, bookmarks and backoffs pass in virtual time.
func (s *Server) Transport() http.RoundTripper { return inproc.New(s, s.opts.latency) }
