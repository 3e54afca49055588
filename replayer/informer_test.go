package replayer

import (
	"context"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// requestLog wraps a RoundTripper and notes every request. When cut is
// set, it says after how many frames the answer to the n-th watch request
// (from 0) is cut (0: not cut), as by a dropped connection. When
// rewrite is set, it changes the query of the n-th watch request.
type requestLog struct {
	rt      http.RoundTripper
	cut     func(n int, q url.Values) int
	rewrite func(n int, q url.Values)

	mu      sync.Mutex
	queries []url.Values // every request's query, as sent to the server
	watches int
}

func (l *requestLog) RoundTrip(req *http.Request) (*http.Response, error) {
	q := req.URL.Query()
	isWatch := q.Get("watch") == "true" || q.Get("watch") == "1"
	l.mu.Lock()
	n := -1
	if isWatch {
		n = l.watches
		l.watches++
		if l.rewrite != nil {
			l.rewrite(n, q)
			req = req.Clone(req.Context())
			req.URL.RawQuery = q.Encode()
		}
	}
	l.queries = append(l.queries, q)
	l.mu.Unlock()
	resp, err := l.rt.RoundTrip(req)
	if err != nil || !isWatch || l.cut == nil {
		return resp, err
	}
	if frames := l.cut(n, q); frames > 0 {
		resp.Body = testutil.CutBody(resp, frames)
	}
	return resp, err
}

// requests renders the requests so far: "LIST rv=0 limit=500",
// "WATCHLIST rv=", "WATCH rv=1009".
func (l *requestLog) requests() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []string
	for _, q := range l.queries {
		switch {
		case q.Get("sendInitialEvents") == "true":
			out = append(out, "WATCHLIST rv="+q.Get("resourceVersion"))
		case q.Get("watch") != "":
			out = append(out, "WATCH rv="+q.Get("resourceVersion"))
		default:
			out = append(out, "LIST rv="+q.Get("resourceVersion")+" limit="+q.Get("limit"))
		}
	}
	return out
}

func (l *requestLog) watchCount() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.watches
}

// clientFor returns a clientset that reaches srv through rt.
func clientFor(t *testing.T, rt http.RoundTripper) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: "http://replay.invalid", Transport: rt})
	if err != nil {
		t.Fatalf("clientset: got error %v, want none", err)
	}
	return cs
}

// listWatch returns the configmap ListerWatcher a reflector uses, with or
// without WatchList semantics.
func listWatch(cs *kubernetes.Clientset, watchList bool) cache.ListerWatcher {
	lw := cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", "", fields.Everything())
	if watchList {
		return lw
	}
	return cache.ToListWatcherWithWatchListSemantics(lw, testutil.NoWatchList{})
}

// finalState renders the history's final state as testutil.ObjectsState
// does.
func finalState(l *history.Log) []string {
	var out []string
	for _, o := range l.StateAt(l.End()) {
		out = append(out, o.Key()+"@"+o.ResourceVersion)
	}
	sort.Strings(out)
	return out
}

func TestInformerConverges(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		history   func(testing.TB) *history.History
		opts      []Option
		watchList bool
		first     string // the first request
		lists     int    // LIST requests wanted (0: any)
	}{
		{name: "shared informer - WatchList on, small history - final state - pass", history: smallHistory, watchList: true, first: "WATCHLIST rv="},
		{name: "shared informer - WatchList off, small history - final state - pass", history: smallHistory, first: "LIST rv=0 limit=500"},
		{name: "shared informer - WatchList on, generated history - final state - pass",
			history: func(t testing.TB) *history.History {
				return testutil.GeneratedHistory(t, 60, 400, 1, testutil.LabelFlips)
			}, watchList: true, first: "WATCHLIST rv="},
		{name: "shared informer - WatchList off, generated history - final state - pass",
			history: func(t testing.TB) *history.History {
				return testutil.GeneratedHistory(t, 60, 400, 2, testutil.LabelFlips)
			}, first: "LIST rv=0 limit=500"},
		{name: "shared informer - WatchList on, recorded pace x10 - final state - pass",
			history: func(t testing.TB) *history.History {
				return testutil.GeneratedHistory(t, 20, 100, 3, testutil.LabelFlips)
			}, watchList: true, first: "WATCHLIST rv=",
			opts: []Option{WithPace(Pace{Mode: PaceRecorded, Factor: 10})}},
		{name: "shared informer - WatchList off, recorded pace - final state - pass",
			history: func(t testing.TB) *history.History {
				return testutil.GeneratedHistory(t, 20, 50, 4, testutil.LabelFlips)
			}, first: "LIST rv=0 limit=500",
			opts: []Option{WithPace(Pace{Mode: PaceRecorded, Factor: 1})}},
		{name: "shared informer - WatchList off, no watch cache, 1,100 objects - 3 LIST pages - pass",
			history: func(t testing.TB) *history.History {
				return testutil.GeneratedHistory(t, 1100, 30, 5, testutil.LabelFlips)
			}, first: "LIST rv=0 limit=500",
			opts: []Option{WithoutWatchCache()}, lists: 3},
	}
	for _, tt := range tests {
		h := tt.history(t)
		l := h.Logs[0]
		t.Run(tt.name, func(t *testing.T) {
			if tt.watchList {
				testutil.RequireWatchList(t)
			}
			synctest.Test(t, func(t *testing.T) {
				srv := New(h, tt.opts...)
				rl := &requestLog{rt: srv.Transport()}
				cs := clientFor(t, rl)
				ctx, cancel := context.WithCancel(t.Context())
				var inf cache.SharedIndexInformer
				var wg sync.WaitGroup
				if tt.watchList {
					f := informers.NewSharedInformerFactory(cs, 0)
					inf = f.Core().V1().ConfigMaps().Informer()
					f.Start(ctx.Done())
					defer f.Shutdown()
				} else {
					inf = cache.NewSharedIndexInformer(listWatch(cs, false), &corev1.ConfigMap{}, 0, cache.Indexers{})
					wg.Go(func() { inf.RunWithContext(ctx) })
				}
				defer wg.Wait()
				defer cancel()
				if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
					t.Fatalf("HasSynced: got false, want true")
				}
				time.Sleep(h.Span + time.Second) // every event recorded is now available
				synctest.Wait()
				if got, want := testutil.ObjectsState(inf.GetStore().List()), finalState(l); !equalStrings(got, want) {
					t.Errorf("informer state:\ngot  %q\nwant %q", got, want)
				}
				got := rl.requests()
				if len(got) == 0 || got[0] != tt.first {
					t.Errorf("requests: got %q, want first %q", got, tt.first)
				}
				if tt.lists > 0 {
					n := 0
					for _, r := range got {
						if strings.HasPrefix(r, "LIST ") {
							n++
						}
					}
					if n != tt.lists {
						t.Errorf("LIST requests: got %d (%q), want %d", n, got, tt.lists)
					}
				}
			})
		})
	}
}

func TestInformerRewatchesAfterTimeout(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		watchList bool
		want      []string // the first requests
	}{
		{name: "shared informer - WatchList on - watch timeouts re-watch from the last RV - pass", watchList: true,
			want: []string{"WATCHLIST rv=", "WATCH rv=1009", "WATCH rv=1009"}},
		{name: "shared informer - WatchList off - watch timeouts re-watch from the last RV - pass",
			want: []string{"LIST rv=0 limit=500", "WATCH rv=1003", "WATCH rv=1009", "WATCH rv=1009"}},
	}
	h := smallHistory(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.watchList {
				testutil.RequireWatchList(t)
			}
			synctest.Test(t, func(t *testing.T) {
				start := time.Now()
				srv := New(h)
				rl := &requestLog{rt: srv.Transport()}
				cs := clientFor(t, rl)
				ctx, cancel := context.WithCancel(t.Context())
				inf := cache.NewSharedIndexInformer(listWatch(cs, tt.watchList), &corev1.ConfigMap{}, 0, cache.Indexers{})
				var wg sync.WaitGroup
				wg.Go(func() { inf.RunWithContext(ctx) })
				defer wg.Wait()
				defer cancel()
				for rl.watchCount() < 3 && time.Since(start) < 2*time.Hour {
					time.Sleep(time.Minute)
				}
				synctest.Wait()
				got := rl.requests()
				if len(got) < len(tt.want) || !equalStrings(got[:len(tt.want)], tt.want) {
					t.Errorf("requests: got %q, want to start with %q", got, tt.want)
				}
				// client-go's watch timeouts are 5 to 10 minutes: two of them
				// have passed in virtual time
				if d := time.Since(start); d < 10*time.Minute {
					t.Errorf("virtual time: got %s, want at least 10m", d)
				}
				if got, want := testutil.ObjectsState(inf.GetStore().List()), finalState(h.Logs[0]); !equalStrings(got, want) {
					t.Errorf("informer state:\ngot  %q\nwant %q", got, want)
				}
			})
		})
	}
}
