package replayer

import (
	"bytes"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestFaultRealServer checks effects over a socket: the reset cuts the
// connection mid-frame and nothing is logged.
func TestFaultRealServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		plan    string
		target  string
		status  int
		frames  int   // whole frames read
		partial bool  // an unfinished frame follows
		err     error // the body's read error; nil for EOF
	}{
		{name: "reset over a socket - the connection is cut mid-frame - pass", plan: "reset:frame=3", target: fWatch,
			status: http.StatusOK, frames: 2, partial: true, err: io.ErrUnexpectedEOF},
		{name: "close-watch over a socket - the chunked body ends cleanly - pass", plan: "close-watch:after=1", target: fWatch,
			status: http.StatusOK, frames: 1},
		{name: "http-error over a socket - 503 - pass", plan: "http-error:code=503", target: fWatch,
			status: http.StatusServiceUnavailable},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ts, logged := socketServer(t, tt.plan)
			defer ts.Close()
			resp, err := ts.Client().Get(ts.URL + tt.target)
			if err != nil {
				t.Fatalf("GET: got error %v, want an answer", err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status: got %d, want %d", resp.StatusCode, tt.status)
			}
			if !errors.Is(err, tt.err) {
				t.Errorf("read: got error %v, want %v", err, tt.err)
			}
			if tt.status == http.StatusOK {
				n := bytes.Count(body, []byte("\n"))
				partial := len(body) > 0 && body[len(body)-1] != '\n'
				if n != tt.frames || partial != tt.partial {
					t.Errorf("body: got %d frames (partial %v), want %d (partial %v):\n%s", n, partial, tt.frames, tt.partial, body)
				}
			}
			ts.Close() // waits for the handlers
			if logged.Len() > 0 {
				t.Errorf("server log: got %q, want nothing", logged.String())
			}
		})
	}
}

// TestFaultRestartRealServer checks apiserver-restart over a socket. The
// request that restarts the server, and the next one while it is down,
// get their connection closed before any answer. Nothing is logged.
func TestFaultRestartRealServer(t *testing.T) {
	t.Parallel()
	srv, ts, logged := socketServer(t, "apiserver-restart:down=600,at=0")
	defer ts.Close()
	for i, target := range []string{fList0, fWatch} {
		resp, err := ts.Client().Get(ts.URL + target)
		if err == nil {
			resp.Body.Close()
			t.Errorf("request %d (%s): got %s, want the connection closed before an answer", i+1, target, resp.Status)
		}
	}
	if got := len(srv.Fired()); got != 1 {
		t.Errorf("fired: got %d firings, want 1 (the second request reaches no point while the server is down)", got)
	}
	ts.Close()
	if logged.Len() > 0 {
		t.Errorf("server log: got %q, want nothing", logged.String())
	}
}

// socketServer serves smallHistory under the plan of text over a socket;
// what the HTTP server logs goes to logged.
func socketServer(t *testing.T, text string) (srv *Server, ts *httptest.Server, logged *bytes.Buffer) {
	t.Helper()
	srv = New(smallHistory(t), WithPlan(mustPlan(t, text)))
	logged = &bytes.Buffer{}
	ts = httptest.NewUnstartedServer(srv)
	ts.Config.ErrorLog = log.New(logged, "", 0)
	ts.Start()
	return srv, ts, logged
}
