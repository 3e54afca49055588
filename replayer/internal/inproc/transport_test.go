package inproc

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lwreplay/lwreplay/replayer/internal/status"
)

// errRefusedForTest is the refusal the tests' handlers give Refuse.
var errRefusedForTest = errors.New("connection refused (test)")

// testHost is the host the tests' requests name.
const testHost = "http://replay.invalid"

// rtResult is what a transport test observed.
type rtResult struct {
	resp    *http.Response
	err     error  // RoundTrip's
	body    string // read to the end
	readErr error  // the body read's, if not EOF
}

func TestTransport(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		method  string
		handler func(release <-chan struct{}) http.HandlerFunc
		// act runs after RoundTrip returned and before the body is read;
		// release lets the handler go on.
		act   func(cancel context.CancelFunc, release chan<- struct{})
		check func(t *testing.T, r rtResult)
		// cancelEarly cancels the request once the handler waits, before
		// RoundTrip returns.
		cancelEarly bool
	}{
		{
			name: "handler writes nothing - 200 with an empty body - pass",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return func(http.ResponseWriter, *http.Request) {}
			},
			check: func(t *testing.T, r rtResult) {
				if r.resp.StatusCode != 200 || r.body != "" || r.resp.Status != "200 OK" {
					t.Errorf("answer: got %q %q, want 200 OK and no body", r.resp.Status, r.body)
				}
			},
		},
		{
			name: "status answer - code, header and body as written - pass",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					status.Write(w, status.NotFound())
					w.Header().Set("X-Late", "ignored") // after WriteHeader: not sent
				}
			},
			check: func(t *testing.T, r rtResult) {
				if r.resp.StatusCode != 404 || r.resp.Header.Get("Content-Type") != "application/json" {
					t.Errorf("answer: got %d %q, want 404 application/json", r.resp.StatusCode, r.resp.Header.Get("Content-Type"))
				}
				if !strings.Contains(r.body, `"reason":"NotFound"`) {
					t.Errorf("body: got %q, want a NotFound Status", r.body)
				}
				if v := r.resp.Header.Get("X-Late"); v != "" {
					t.Errorf("header set after WriteHeader: got %q, want not sent", v)
				}
			},
		},
		{
			name: "body written without a header - 200 and a sniffed Content-Type - pass",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "hello") }
			},
			check: func(t *testing.T, r rtResult) {
				if r.resp.StatusCode != 200 || r.body != "hello" || !strings.HasPrefix(r.resp.Header.Get("Content-Type"), "text/plain") {
					t.Errorf("answer: got %d %q %q, want 200 text/plain hello", r.resp.StatusCode, r.resp.Header.Get("Content-Type"), r.body)
				}
			},
		},
		{
			name: "streaming - RoundTrip returns at the header while the handler waits - pass",
			handler: func(release <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Transfer-Encoding", "chunked")
					w.WriteHeader(http.StatusOK)
					w.(http.Flusher).Flush()
					<-release
					io.WriteString(w, "later")
				}
			},
			act: func(_ context.CancelFunc, release chan<- struct{}) { close(release) },
			check: func(t *testing.T, r rtResult) {
				if r.body != "later" {
					t.Errorf("body: got %q, want later", r.body)
				}
				if len(r.resp.TransferEncoding) != 1 || r.resp.TransferEncoding[0] != "chunked" || r.resp.Header.Get("Transfer-Encoding") != "" {
					t.Errorf("framing: got %q and header %q, want field [chunked] and no header", r.resp.TransferEncoding, r.resp.Header.Get("Transfer-Encoding"))
				}
				if r.resp.ContentLength != -1 {
					t.Errorf("content length: got %d, want -1", r.resp.ContentLength)
				}
			},
		},
		{
			name: "Content-Length header - becomes the field - pass",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Content-Length", "2")
					io.WriteString(w, "ok")
				}
			},
			check: func(t *testing.T, r rtResult) {
				if r.resp.ContentLength != 2 || r.body != "ok" {
					t.Errorf("answer: got length %d body %q, want 2 ok", r.resp.ContentLength, r.body)
				}
			},
		},
		{
			name:   "HEAD - no body - pass",
			method: http.MethodHead,
			handler: func(<-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, _ *http.Request) { io.WriteString(w, "not sent") }
			},
			check: func(t *testing.T, r rtResult) {
				if r.resp.StatusCode != 200 || r.body != "" {
					t.Errorf("answer: got %d %q, want 200 and no body", r.resp.StatusCode, r.body)
				}
			},
		},
		{
			name: "handler panics before the header - RoundTrip fails with ErrHandlerPanic - fail",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return func(http.ResponseWriter, *http.Request) { panic("boom") }
			},
			check: func(t *testing.T, r rtResult) {
				if !errors.Is(r.err, ErrHandlerPanic) || !strings.Contains(r.err.Error(), "boom") {
					t.Errorf("RoundTrip: got %v, want ErrHandlerPanic with boom", r.err)
				}
			},
		},
		{
			name: "handler panics mid-body - the body read fails with ErrHandlerPanic - fail",
			handler: func(release <-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, _ *http.Request) {
					w.WriteHeader(http.StatusOK)
					<-release
					panic("boom")
				}
			},
			act: func(_ context.CancelFunc, release chan<- struct{}) { close(release) },
			check: func(t *testing.T, r rtResult) {
				if !errors.Is(r.readErr, ErrHandlerPanic) {
					t.Errorf("body read: got %v, want ErrHandlerPanic", r.readErr)
				}
			},
		},
		{
			name: "answer broken mid-body - the body read fails with Break's error after what was written - fail",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, _ *http.Request) {
					io.WriteString(w, "half")
					if !Break(w, io.ErrUnexpectedEOF) {
						panic("Break: got false for a Transport's writer, want true")
					}
				}
			},
			check: func(t *testing.T, r rtResult) {
				if r.body != "half" || !errors.Is(r.readErr, io.ErrUnexpectedEOF) {
					t.Errorf("body: got %q and error %v, want half and io.ErrUnexpectedEOF", r.body, r.readErr)
				}
			},
		},
		{
			name:        "request context cancelled before the header - RoundTrip fails with it - fail",
			cancelEarly: true,
			handler: func(<-chan struct{}) http.HandlerFunc {
				return func(_ http.ResponseWriter, r *http.Request) { <-r.Context().Done() }
			},
			check: func(t *testing.T, r rtResult) {
				if !errors.Is(r.err, context.Canceled) {
					t.Errorf("RoundTrip: got %v, want context.Canceled", r.err)
				}
			},
		},
		{
			name: "request context cancelled while streaming - the body read fails with it - fail",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.WriteHeader(http.StatusOK)
					<-r.Context().Done()
				}
			},
			act: func(cancel context.CancelFunc, _ chan<- struct{}) { cancel() },
			check: func(t *testing.T, r rtResult) {
				if !errors.Is(r.readErr, context.Canceled) {
					t.Errorf("body read: got %v, want context.Canceled", r.readErr)
				}
			},
		},
		{
			name: "handler refuses - RoundTrip fails with the refusal, no answer - pass",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					if !Refuse(w, errRefusedForTest) {
						panic("Refuse: got false on a Transport's writer, want true")
					}
					w.WriteHeader(http.StatusOK) // after Refuse: ignored
					if _, err := io.WriteString(w, "late"); !errors.Is(err, errRefusedForTest) {
						panic("write after Refuse: got no refusal")
					}
				}
			},
			check: func(t *testing.T, r rtResult) {
				if !errors.Is(r.err, errRefusedForTest) || r.resp != nil {
					t.Errorf("RoundTrip: got (%v, %v), want (nil, the refusal)", r.resp, r.err)
				}
			},
		},
		{
			name: "handler refuses after writing its header - the answer stands - pass",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.WriteHeader(http.StatusAccepted)
					if Refuse(w, errRefusedForTest) {
						panic("Refuse: got true after the header was written, want false")
					}
				}
			},
			check: func(t *testing.T, r rtResult) {
				if r.err != nil || r.resp.StatusCode != http.StatusAccepted {
					t.Errorf("RoundTrip: got error %v, want the 202 answer", r.err)
				}
			},
		},
		{
			name: "request context cancelled while the handler writes - its write fails - pass",
			handler: func(<-chan struct{}) http.HandlerFunc {
				return func(w http.ResponseWriter, r *http.Request) {
					w.WriteHeader(http.StatusOK)
					for {
						if _, err := io.WriteString(w, "x"); err != nil {
							return
						}
					}
				}
			},
			act: func(cancel context.CancelFunc, _ chan<- struct{}) { cancel() },
			check: func(t *testing.T, r rtResult) {
				if !errors.Is(r.readErr, context.Canceled) {
					t.Errorf("body read: got %v, want context.Canceled", r.readErr)
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				release := make(chan struct{})
				returned := make(chan struct{})
				h := tt.handler(release)
				rt := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					defer close(returned)
					h(w, r)
				}), 0)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				method := tt.method
				if method == "" {
					method = http.MethodGet
				}
				req, _ := http.NewRequestWithContext(ctx, method, testHost+"/x", nil)
				if tt.cancelEarly {
					go func() {
						synctest.Wait()
						cancel()
					}()
				}
				var r rtResult
				r.resp, r.err = rt.RoundTrip(req)
				if r.err == nil {
					if tt.act != nil {
						tt.act(cancel, release)
					}
					b, err := io.ReadAll(r.resp.Body)
					r.body, r.readErr = string(b), err
					if err := r.resp.Body.Close(); err != nil {
						t.Errorf("body close: got %v, want nil", err)
					}
				} else if r.resp != nil {
					t.Errorf("RoundTrip: got a response with error %v, want none", r.err)
				}
				tt.check(t, r)
				select {
				case <-returned:
				default:
					t.Errorf("handler: got still running after the body was closed, want returned")
				}
			})
		})
	}
}

func TestTransportBodyCloseCancelsHandler(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		reads int // bytes read before the close
	}{
		{name: "body closed before any read - handler context done - pass", reads: 0},
		{name: "body closed after a read - handler context done - pass", reads: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				var handlerErr error
				returned := make(chan struct{})
				rt := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					defer close(returned)
					io.WriteString(w, "a")
					<-r.Context().Done()
					handlerErr = r.Context().Err()
				}), 0)
				req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, testHost+"/x", nil)
				resp, err := rt.RoundTrip(req)
				if err != nil {
					t.Fatalf("RoundTrip: got %v, want an answer", err)
				}
				if tt.reads > 0 {
					if _, err := io.ReadFull(resp.Body, make([]byte, tt.reads)); err != nil {
						t.Fatalf("read: got %v, want none", err)
					}
				}
				resp.Body.Close()
				select {
				case <-returned:
				default:
					t.Fatalf("handler: got running after Close returned, want returned")
				}
				if !errors.Is(handlerErr, context.Canceled) {
					t.Errorf("handler context: got %v, want context.Canceled", handlerErr)
				}
				if _, err := resp.Body.Read(make([]byte, 1)); err == nil {
					t.Errorf("read after close: got nil error, want one")
				}
			})
		})
	}
}

func TestTransportLatency(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name        string
		latency     time.Duration
		cancelAfter time.Duration // 0: never
		wantAt      time.Duration // when the handler got the request
		wantErr     error
	}{
		{name: "latency - none - handled at once - pass", latency: 0, wantAt: 0},
		{name: "latency - default - handled after it - pass", latency: DefaultLatency, wantAt: DefaultLatency},
		{name: "latency - 5ms - handled after it - pass", latency: 5 * time.Millisecond, wantAt: 5 * time.Millisecond},
		{name: "latency - negative - handled at once - pass", latency: -time.Second, wantAt: 0},
		{name: "latency - request cancelled before it passed - never handled - fail", latency: 5 * time.Millisecond,
			cancelAfter: time.Millisecond, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				handledAt := time.Duration(-1)
				rt := New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					handledAt = time.Since(start)
					io.WriteString(w, "ok")
				}), tt.latency)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				if tt.cancelAfter > 0 {
					time.AfterFunc(tt.cancelAfter, cancel)
				}
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, testHost+"/x", nil)
				resp, err := rt.RoundTrip(req)
				if tt.wantErr != nil {
					if !errors.Is(err, tt.wantErr) || handledAt != -1 {
						t.Fatalf("RoundTrip: got error %v, handled at %v, want %v and never handled", err, handledAt, tt.wantErr)
					}
					return
				}
				if err != nil {
					t.Fatalf("RoundTrip: got %v, want an answer", err)
				}
				io.ReadAll(resp.Body)
				resp.Body.Close()
				if handledAt != tt.wantAt {
					t.Errorf("handled at: got %v, want %v", handledAt, tt.wantAt)
				}
			})
		})
	}
}
