package replayer

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// recordingStore is a reflector's store that notes every change it gets.
type recordingStore struct {
	cache.Store
	mu  sync.Mutex
	ops []string
}

func newRecordingStore() *recordingStore {
	return &recordingStore{Store: cache.NewStore(cache.MetaNamespaceKeyFunc)}
}

func (s *recordingStore) note(op string, obj any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.ops = append(s.ops, op+" "+testutil.ObjectsState([]any{obj})[0])
}

func (s *recordingStore) Add(obj any) error    { s.note("ADDED", obj); return s.Store.Add(obj) }
func (s *recordingStore) Update(obj any) error { s.note("MODIFIED", obj); return s.Store.Update(obj) }
func (s *recordingStore) Delete(obj any) error { s.note("DELETED", obj); return s.Store.Delete(obj) }

func (s *recordingStore) Replace(objs []any, rv string) error {
	s.mu.Lock()
	s.ops = append(s.ops, "REPLACE@"+rv+" "+strings.Join(testutil.ObjectsState(objs), " "))
	s.mu.Unlock()
	return s.Store.Replace(objs, rv)
}

func (s *recordingStore) changes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.ops...)
}

// historyOps is what a reflector's store gets from a history it follows
// from the start: the initial state, then every event once, in order.
func historyOps(l *history.Log) []string {
	var init []string
	for _, o := range l.Initial {
		init = append(init, o.Key()+"@"+o.ResourceVersion)
	}
	sort.Strings(init)
	out := []string{"REPLACE@" + l.StartRV + " " + strings.Join(init, " ")}
	for _, e := range l.Events {
		out = append(out, string(e.Type)+" "+e.Object.Key()+"@"+e.RV())
	}
	return out
}

func TestReflectorResumesCutWatch(t *testing.T) {
	t.Parallel()
	small := smallHistory(t)
	gen := testutil.GeneratedHistory(t, 30, 200, 5, testutil.LabelFlips)
	tests := []struct {
		name      string
		h         *history.History
		watchList bool
		cut       func(n int, q url.Values) int
		resumed   string // the request after the first watch
	}{
		{name: "reflector - WatchList on, stream cut after two live events - resumes from 1005 - pass", h: small, watchList: true,
			cut:     func(n int, _ url.Values) int { return map[int]int{0: 3 + 1 + 2}[n] },
			resumed: "WATCH rv=1005"},
		{name: "reflector - WatchList off, watch cut after two events - resumes from 1005 - pass", h: small,
			cut:     func(n int, _ url.Values) int { return map[int]int{0: 2}[n] },
			resumed: "WATCH rv=1005"},
		{name: "reflector - WatchList on, every live watch cut after 5 frames - no loss, no duplicate - pass", h: gen, watchList: true,
			cut: func(_ int, q url.Values) int {
				if q.Get("sendInitialEvents") == "true" {
					return 0
				}
				return 5
			}},
		{name: "reflector - WatchList off, every watch cut after 3 frames - no loss, no duplicate - pass", h: gen,
			cut: func(int, url.Values) int { return 3 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.watchList {
				testutil.RequireWatchList(t)
			}
			synctest.Test(t, func(t *testing.T) {
				srv := New(tt.h, WithLatency(0)) // every goroutine blocked: the reflector has done all it does at once
				rl := &requestLog{rt: srv.Transport(), cut: tt.cut}
				cs := clientFor(t, rl)
				store := newRecordingStore()
				r := cache.NewReflectorWithOptions(listWatch(cs, tt.watchList), &corev1.ConfigMap{}, store, cache.ReflectorOptions{})
				ctx, cancel := context.WithCancel(t.Context())
				var wg sync.WaitGroup
				wg.Go(func() { r.RunWithContext(ctx) })
				defer wg.Wait()
				defer cancel()
				synctest.Wait()
				if got, want := store.changes(), historyOps(tt.h.Logs[0]); !equalStrings(got, want) {
					t.Errorf("store changes:\ngot  %q\nwant %q", got, want)
				}
				got := rl.requests()
				first := 0 // the first watch
				for first < len(got) && strings.HasPrefix(got[first], "LIST") {
					first++
				}
				if tt.resumed != "" && (len(got) < first+2 || got[first+1] != tt.resumed) {
					t.Errorf("requests: got %q, want %q after the first watch", got, tt.resumed)
				}
				for _, q := range got[first+1:] {
					if strings.HasPrefix(q, "LIST") || strings.HasPrefix(q, "WATCHLIST") {
						t.Errorf("requests: got %q, want no relist after a cut", got)
						break
					}
				}
			})
		})
	}
}

func TestReflectorRelistsAfterTooOld(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		opts      []Option
		watchList bool
		rewriteTo string // the RV the first plain watch asks for
		wantErr   string // the ERROR event's message
	}{
		{name: "reflector - WatchList on, re-watch from before the history - 410, relist - pass", watchList: true, rewriteTo: "1000",
			wantErr: "too old resource version: 1000 (1003)"},
		{name: "reflector - WatchList on, re-watch from before the compaction point - 410, relist - pass", watchList: true, rewriteTo: "1004",
			opts: []Option{WithCompaction("1005")}, wantErr: "too old resource version: 1004 (1005)"},
		{name: "reflector - WatchList off, watch from before the history - 410, relist - pass", rewriteTo: "1000",
			wantErr: "too old resource version: 1000 (1003)"},
	}
	h := smallHistory(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.watchList {
				testutil.RequireWatchList(t)
			}
			synctest.Test(t, func(t *testing.T) {
				srv := New(h, tt.opts...)
				var mu sync.Mutex
				var errFrames []string
				rewritten := -1
				rl := &requestLog{rt: &errorTap{rt: srv.Transport(), mu: &mu, frames: &errFrames}}
				rl.rewrite = func(n int, q url.Values) {
					if rewritten < 0 && q.Get("sendInitialEvents") == "" {
						rewritten = n
						q.Set("resourceVersion", tt.rewriteTo)
					}
				}
				cs := clientFor(t, rl)
				store := newRecordingStore()
				r := cache.NewReflectorWithOptions(listWatch(cs, tt.watchList), &corev1.ConfigMap{}, store, cache.ReflectorOptions{})
				ctx, cancel := context.WithCancel(t.Context())
				var wg sync.WaitGroup
				wg.Go(func() { r.RunWithContext(ctx) })
				defer wg.Wait()
				defer cancel()
				start := time.Now()
				for time.Since(start) < 30*time.Minute && countPrefix(store.changes(), "REPLACE") < 2 {
					time.Sleep(time.Minute)
				}
				synctest.Wait()
				mu.Lock()
				gotErr := append([]string(nil), errFrames...)
				mu.Unlock()
				if len(gotErr) != 1 || !strings.Contains(gotErr[0], `"message":"`+tt.wantErr+`"`) || !strings.Contains(gotErr[0], `"code":410`) {
					t.Errorf("ERROR events: got %q, want one 410 %q", gotErr, tt.wantErr)
				}
				if n := countPrefix(store.changes(), "REPLACE"); n < 2 {
					t.Errorf("relists: got %d store replaces, want at least 2 (requests %q)", n, rl.requests())
				}
				var keys []any
				for _, o := range store.List() {
					keys = append(keys, o)
				}
				if got, want := testutil.ObjectsState(keys), finalState(h.Logs[0]); !equalStrings(got, want) {
					t.Errorf("reflector state:\ngot  %q\nwant %q", got, want)
				}
			})
		})
	}
}

func countPrefix(ss []string, p string) int {
	n := 0
	for _, s := range ss {
		if strings.HasPrefix(s, p) {
			n++
		}
	}
	return n
}

// errorTap notes the ERROR frames of watch answers.
type errorTap struct {
	rt     http.RoundTripper
	mu     *sync.Mutex
	frames *[]string
}

func (e *errorTap) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := e.rt.RoundTrip(req)
	if err != nil || req.URL.Query().Get("watch") == "" {
		return resp, err
	}
	resp.Body = &tapBody{rc: resp.Body, e: e}
	return resp, nil
}

type tapBody struct {
	rc  io.ReadCloser
	e   *errorTap
	buf []byte
}

func (t *tapBody) Read(p []byte) (int, error) {
	n, err := t.rc.Read(p)
	t.buf = append(t.buf, p[:n]...)
	for {
		i := bytes.IndexByte(t.buf, '\n')
		if i < 0 {
			break
		}
		if line := t.buf[:i]; bytes.HasPrefix(line, []byte(`{"type":"ERROR"`)) {
			t.e.mu.Lock()
			*t.e.frames = append(*t.e.frames, string(line))
			t.e.mu.Unlock()
		}
		t.buf = t.buf[i+1:]
	}
	return n, err
}

func (t *tapBody) Close() error { return t.rc.Close() }
