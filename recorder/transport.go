package recorder

import (
	"context"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// Wrap returns rt wrapped so that its traffic is recorded; its signature
// fits rest.Config.Wrap.
//
// The client reads the answer as it arrives: every Read passes through at
// once, and the bytes are copied aside. Nothing is read ahead of the
// client. Since cassettes hold JSON, the protobuf and CBOR media ranges of
// a request's Accept header are left out (client-go decodes whichever
// encoding it gets). A request's body (a write's object or patch) is
// recorded as sent, in its own encoding (see request.go).
// Upgraded connections (101) and requests whose list options do not parse
// pass through unrecorded, as does everything after Close.
func (r *Recorder) Wrap(rt http.RoundTripper) http.RoundTripper {
	return &transport{r: r, next: rt}
}

type transport struct {
	r    *Recorder
	next http.RoundTripper
}

// RoundTrip sends req and records its answer as the client reads it.
func (t *transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if t.r.isClosed() {
		return t.next.RoundTrip(req)
	}
	req = preferJSON(req)
	sent, req := takeBody(req)
	started := time.Now()
	resp, err := t.next.RoundTrip(req)
	if err != nil || resp == nil || resp.StatusCode == http.StatusSwitchingProtocols {
		return resp, err
	}
	e := t.r.register(req, sent, resp, started)
	if e == nil {
		return resp, nil
	}
	if resp.Body == nil {
		t.r.finish(e, true)
		return resp, nil
	}
	resp.Body = &body{rc: resp.Body, e: e, ctx: req.Context()}
	return resp, nil
}

// preferJSON returns req, or a copy whose Accept header leaves out the
// protobuf and CBOR media ranges ("application/json" when nothing is left).
func preferJSON(req *http.Request) *http.Request {
	accept := req.Header.Values("Accept")
	binary := false
	var kept []string
	for _, v := range accept {
		for _, r := range strings.Split(v, ",") {
			lr := strings.ToLower(r)
			if strings.Contains(lr, "protobuf") || strings.Contains(lr, "cbor") {
				binary = true
				continue
			}
			if strings.TrimSpace(r) != "" {
				kept = append(kept, strings.TrimSpace(r))
			}
		}
	}
	if !binary {
		return req
	}
	if len(kept) == 0 {
		kept = []string{"application/json"}
	}
	c := req.Clone(req.Context())
	c.Header.Set("Accept", strings.Join(kept, ","))
	return c
}

// register starts recording an answer to req, which sent body; nil after
// Close, and for a request whose list options do not parse (watch=yes,
// limit=-1).
func (r *Recorder) register(req *http.Request, body []byte, resp *http.Response, started time.Time) *entry {
	q, isResource, err := history.ParseRequestInfo(req.URL)
	if err != nil {
		return nil // kube-apiserver refuses it too; it would make the cassette unreadable
	}
	method := req.Method
	if method == "" {
		method = http.MethodGet
	}
	it := cassette.Interaction{
		Method:        method,
		URL:           requestURL(req.URL),
		RequestHeader: requestHeader(req.Header),
		Code:          resp.StatusCode,
		Header:        responseHeader(resp.Header),
		Started:       started,
	}
	kept, redacted, ok := r.rd.request(body, req.Header.Get("Content-Type"), q)
	if !ok {
		r.stats.dropped.Add(1)
	}
	if it.RequestBody = kept; redacted {
		it.Header.Set(cassette.HeaderRedacted, "request-body")
	}
	e := newEntry(r, it, q, isResource)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	r.entries = append(r.entries, e)
	if method != http.MethodGet && method != http.MethodHead {
		r.stats.writes.Add(1)
	}
	if e.watch {
		r.stats.watches.Add(1)
		r.stats.interactions.Add(1)
	}
	r.gen.Add(1)
	return e
}

// body tees a response body into its entry.
type body struct {
	rc  io.ReadCloser
	e   *entry
	ctx context.Context // the request's: once done, a failed read is the client leaving
}

// Read reads from the answer and records what it returns.
func (b *body) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	r := b.e.r
	if n > 0 {
		if d := b.e.take(p[:n], time.Now()); d > 0 {
			r.grew()
		}
	}
	if err != nil {
		end := cassette.EndError
		switch {
		case err == io.EOF:
			end = cassette.EndEOF
		case b.ctx.Err() != nil:
			end = cassette.EndClosed // the client gave up, the stream did not break
		}
		b.e.setEnd(end)
		r.finish(b.e, err == io.EOF)
	}
	return n, err
}

// Close closes the answer; what was read is recorded.
func (b *body) Close() error {
	err := b.rc.Close()
	b.e.setEnd(cassette.EndClosed)
	b.e.r.finish(b.e, false)
	return err
}

func (r *Recorder) finish(e *entry, eof bool) {
	if d := e.finish(time.Now(), eof); d > 0 {
		r.grew()
	}
}
