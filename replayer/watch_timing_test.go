package replayer

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lwreplay/lwreplay/replayer/internal/inproc"
)

func TestWatchTiming(t *testing.T) {
	t.Parallel()
	h := smallHistory(t)
	l := h.Logs[0]
	// events under the recorded pace, at their recorded offsets / factor
	paced := func(factor float64, from int) []string {
		var out []string
		for _, e := range l.Events[from:] {
			at := time.Duration(float64(e.At) / factor)
			out = append(out, fmt.Sprintf("+%s %s %s@%s", at, e.Type, e.Object.Key(), e.RV()))
		}
		return out
	}
	atZero := func(fs ...string) []string {
		out := make([]string, len(fs))
		for i, f := range fs {
			out[i] = "+0s " + f
		}
		return out
	}
	tests := []struct {
		name    string
		opts    []Option
		target  string
		want    []string
		wantEnd time.Duration
	}{
		{
			name:    "watch with timeoutSeconds=150 - bookmarks every minute and 2 s before the close - pass",
			target:  "/api/v1/configmaps?watch=true&resourceVersion=1008&allowWatchBookmarks=true&timeoutSeconds=150",
			want:    []string{"+0s DELETED ns2/c@1009", "+1m0s BOOKMARK@1009", "+2m0s BOOKMARK@1009", "+2m28s BOOKMARK@1009"},
			wantEnd: 150 * time.Second,
		},
		{
			name:    "watch without timeoutSeconds - the server's timeout and bookmark interval - pass",
			opts:    []Option{WithWatchTimeout(5 * time.Minute), WithBookmarkInterval(2 * time.Minute)},
			target:  "/api/v1/configmaps?watch=true&resourceVersion=1009&allowWatchBookmarks=true",
			want:    []string{"+2m0s BOOKMARK@1009", "+4m0s BOOKMARK@1009", "+4m58s BOOKMARK@1009"},
			wantEnd: 5 * time.Minute,
		},
		{
			name:    "watch with timeoutSeconds=450 under a 3 min cap - ends at the cap, bookmark 2 s before - pass",
			opts:    []Option{WithMaxWatchTimeout(3 * time.Minute)},
			target:  "/api/v1/configmaps?watch=true&resourceVersion=1009&allowWatchBookmarks=true&timeoutSeconds=450",
			want:    []string{"+1m0s BOOKMARK@1009", "+2m0s BOOKMARK@1009", "+2m58s BOOKMARK@1009"},
			wantEnd: 3 * time.Minute,
		},
		{
			name:    "watch with timeoutSeconds=150 under a 3 min cap - its own timeout - pass",
			opts:    []Option{WithMaxWatchTimeout(3 * time.Minute)},
			target:  "/api/v1/configmaps?watch=true&resourceVersion=1009&allowWatchBookmarks=true&timeoutSeconds=150",
			want:    []string{"+1m0s BOOKMARK@1009", "+2m0s BOOKMARK@1009", "+2m28s BOOKMARK@1009"},
			wantEnd: 150 * time.Second,
		},
		{
			name:    "watch without timeoutSeconds under a 3 min cap - ends at the cap, not the server's 30 min - pass",
			opts:    []Option{WithMaxWatchTimeout(3 * time.Minute)},
			target:  "/api/v1/configmaps?watch=true&resourceVersion=1009&timeoutSeconds=0",
			want:    []string{},
			wantEnd: 3 * time.Minute,
		},
		{
			name:    "watch with timeoutSeconds=1 - no time for a bookmark - pass",
			target:  "/api/v1/configmaps?watch=true&resourceVersion=1009&allowWatchBookmarks=true&timeoutSeconds=1",
			want:    []string{},
			wantEnd: time.Second,
		},
		{
			name:    "watch without allowWatchBookmarks - no bookmarks - pass",
			target:  "/api/v1/configmaps?watch=true&resourceVersion=1009&timeoutSeconds=150",
			want:    []string{},
			wantEnd: 150 * time.Second,
		},
		{
			name:    "watch from an RV beyond the history - no bookmark older than it - pass",
			target:  "/api/v1/configmaps?watch=true&resourceVersion=5000&allowWatchBookmarks=true&timeoutSeconds=150",
			want:    []string{},
			wantEnd: 150 * time.Second,
		},
		{
			name:    "watch under the recorded pace - events at their recorded offsets - pass",
			opts:    []Option{WithPace(Pace{Mode: PaceRecorded, Factor: 1})},
			target:  "/api/v1/configmaps?watch=true&resourceVersion=1003&timeoutSeconds=60",
			want:    paced(1, 0),
			wantEnd: time.Minute,
		},
		{
			name:    "watch under the recorded pace x2 - events twice as fast - pass",
			opts:    []Option{WithPace(Pace{Mode: PaceRecorded, Factor: 2})},
			target:  "/api/v1/configmaps?watch=true&resourceVersion=1003&timeoutSeconds=60",
			want:    paced(2, 0),
			wantEnd: time.Minute,
		},
		{
			name:    "watch under the recorded pace from a future RV - no bookmark before the pace reaches it - pass",
			opts:    []Option{WithPace(Pace{Mode: PaceRecorded, Factor: 1}), WithBookmarkInterval(2500 * time.Millisecond)},
			target:  "/api/v1/configmaps?watch=true&resourceVersion=1006&allowWatchBookmarks=true&timeoutSeconds=12",
			want:    []string{"+7s MODIFIED ns1/a@1007", "+7.5s BOOKMARK@1007", "+8s DELETED ns1/d@1008", "+9s DELETED ns2/c@1009", "+10s BOOKMARK@1009"},
			wantEnd: 12 * time.Second,
		},
		{
			name:    "watchlist under the recorded pace - state at once, events at their offsets - pass",
			opts:    []Option{WithPace(Pace{Mode: PaceRecorded, Factor: 1})},
			target:  "/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=60",
			want:    append(atZero("ADDED ns1/a@1001", "ADDED ns1/b@1002", "ADDED ns2/c@1003"), paced(1, 0)...),
			wantEnd: time.Minute,
		},
		{
			name:   "watchlist at an RV the pace reaches within 3 s - waits for it - pass",
			opts:   []Option{WithPace(Pace{Mode: PaceRecorded, Factor: 4})},
			target: "/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=60&resourceVersion=1006",
			want: append([]string{
				"+" + (l.Events[2].At / 4).String() + " ADDED ns1/a@1004",
				"+" + (l.Events[2].At / 4).String() + " ADDED ns1/b@1006",
				"+" + (l.Events[2].At / 4).String() + " ADDED ns1/d@1005",
				"+" + (l.Events[2].At / 4).String() + " ADDED ns2/c@1003",
			}, paced(4, 3)...),
			wantEnd: time.Minute,
		},
		{
			name:    "watchlist at an RV the pace does not reach within 3 s - ERROR 504 at 3 s - fail",
			opts:    []Option{WithPace(Pace{Mode: PaceRecorded, Factor: 1})},
			target:  "/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=60&resourceVersion=1006",
			want:    []string{"+3s ERROR 504 Timeout: Too large resource version: 1006, current: 1003"},
			wantEnd: 3 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := New(h, append([]Option{WithLatency(0)}, tt.opts...)...) // the server's timing alone, no latency
				st := readStream(t, srv.Transport(), tt.target)
				if st.err != nil {
					t.Fatalf("read body: got error %v, want EOF", st.err)
				}
				if got := timedStrings(st.frames); !equalStrings(got, tt.want) {
					t.Errorf("frames:\ngot  %q\nwant %q", got, tt.want)
				}
				if st.end != tt.wantEnd {
					t.Errorf("stream end: got +%s, want +%s", st.end, tt.wantEnd)
				}
			})
		})
	}
}

func TestNextBookmark(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		name     string
		now      time.Time
		deadline time.Time
		every    time.Duration
		want     time.Duration // since now; -1: none
	}{
		{name: "next bookmark - far deadline - one interval - pass", now: t0, deadline: t0.Add(time.Hour), every: time.Minute, want: time.Minute},
		{name: "next bookmark - deadline within the interval - 2 s before it - pass", now: t0, deadline: t0.Add(30 * time.Second), every: time.Minute, want: 28 * time.Second},
		{name: "next bookmark - at the pre-timeout instant - none - pass", now: t0, deadline: t0.Add(2 * time.Second), every: time.Minute, want: -1},
		{name: "next bookmark - no deadline - one interval - pass", now: t0, every: time.Minute, want: time.Minute},
		{name: "next bookmark - no deadline, no interval - none - pass", now: t0, want: -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			at, ok := nextBookmark(tt.now, tt.deadline, tt.every)
			got := time.Duration(-1)
			if ok {
				got = at.Sub(tt.now)
			}
			if got != tt.want {
				t.Errorf("next bookmark: got %s, want %s", got, tt.want)
			}
		})
	}
}

// flushRecorder is a ResponseRecorder whose writes a test can watch.
type flushRecorder struct {
	*httptest.ResponseRecorder
	wrote chan struct{} // gets a value per write
}

func (f *flushRecorder) Write(b []byte) (int, error) {
	n, err := f.ResponseRecorder.Write(b)
	select {
	case f.wrote <- struct{}{}:
	default:
	}
	return n, err
}

func TestWatchStops(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		target string
		stop   func(cancel context.CancelFunc, body io.Closer)
	}{
		{
			name:   "watch - request context cancelled - handler returns at once - pass",
			target: "/api/v1/configmaps?watch=true&resourceVersion=1003&allowWatchBookmarks=true",
			stop:   func(cancel context.CancelFunc, _ io.Closer) { cancel() },
		},
		{
			name:   "watchlist - request context cancelled - handler returns at once - pass",
			target: "/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
			stop:   func(cancel context.CancelFunc, _ io.Closer) { cancel() },
		},
		{
			name:   "watch - response body closed mid-stream - handler returns at once - pass",
			target: "/api/v1/configmaps?watch=true&resourceVersion=1003&allowWatchBookmarks=true",
			stop:   func(_ context.CancelFunc, body io.Closer) { body.Close() },
		},
		{
			name:   "watchlist - response body closed mid-stream - handler returns at once - pass",
			target: "/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true",
			stop:   func(_ context.CancelFunc, body io.Closer) { body.Close() },
		},
	}
	h := smallHistory(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := New(h)
				returned := make(chan struct{})
				rt := inproc.New(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					defer close(returned)
					srv.ServeHTTP(w, r)
				}), 0)
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				req, _ := http.NewRequestWithContext(ctx, http.MethodGet, testHost+tt.target, nil)
				resp, err := rt.RoundTrip(req)
				if err != nil {
					t.Fatalf("GET: got error %v, want an answer", err)
				}
				defer resp.Body.Close()
				line, err := bufio.NewReader(resp.Body).ReadBytes('\n')
				if err != nil || len(line) == 0 {
					t.Fatalf("first frame: got %q, %v, want a frame", line, err)
				}
				synctest.Wait()
				select {
				case <-returned:
					t.Fatalf("handler: got returned before the stop, want streaming")
				default:
				}
				start := time.Now()
				tt.stop(cancel, resp.Body)
				synctest.Wait()
				select {
				case <-returned:
				default:
					t.Fatalf("handler: got still running after the stop, want returned")
				}
				if d := time.Since(start); d != 0 {
					t.Errorf("stop took: got %s of virtual time, want 0", d)
				}
			})
		})
	}
}

// TestWatchHandlerStops runs the handler with no transport between: a
// cancelled request context ends ServeHTTP.
func TestWatchHandlerStops(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		target string
	}{
		{name: "watch - context cancelled while waiting - ServeHTTP returns - pass", target: "/api/v1/configmaps?watch=true&resourceVersion=1009&allowWatchBookmarks=true"},
		{name: "watchlist - context cancelled during the too-large wait - ServeHTTP returns - pass", target: "/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&resourceVersion=5000"},
	}
	h := smallHistory(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := New(h)
				ctx, cancel := context.WithCancel(t.Context())
				rec := &flushRecorder{ResponseRecorder: httptest.NewRecorder(), wrote: make(chan struct{}, 1)}
				req := httptest.NewRequestWithContext(ctx, http.MethodGet, tt.target, nil)
				done := make(chan struct{})
				go func() {
					defer close(done)
					srv.ServeHTTP(rec, req)
				}()
				synctest.Wait()
				select {
				case <-done:
					t.Fatalf("ServeHTTP: got returned before the cancel, want waiting")
				default:
				}
				cancel()
				synctest.Wait()
				select {
				case <-done:
				default:
					t.Fatalf("ServeHTTP: got still running after the cancel, want returned")
				}
			})
		})
	}
}
