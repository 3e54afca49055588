package replayer

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// cappedTransport counts requests and cancels its context past max: a
// client that storms a server whose detection failed still stops.
type cappedTransport struct {
	rt     http.RoundTripper
	max    int64
	cancel context.CancelFunc
	n      atomic.Int64
}

func (c *cappedTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if c.n.Add(1) > c.max {
		c.cancel()
	}
	return c.rt.RoundTrip(req)
}

func TestServerStorms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		plan      string // a fault, "" for none
		watchList bool
		run       time.Duration // virtual time the informer runs, unless a storm stops it
		storm     bool
	}{
		{"server - informer, WatchList cut after 1 initial event, restarted at once - fail", "close-watch:after=1", true, 10 * time.Minute, true},
		{"server - informer, WatchList, no fault - pass", "", true, 10 * time.Minute, false},
		{"server - informer, LIST and WATCH, each watch closed after 1 event, re-watched at once - pass", "close-watch:after=1", false, 10 * time.Minute, false},
		{"server - informer, LIST and WATCH, each watch closed at open, backoff - pass", "close-watch:after=0", false, 10 * time.Minute, false},
		{"server - informer, WatchList, each watch answered 503, backoff - pass", "http-error:code=503", true, 10 * time.Minute, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.watchList {
				testutil.RequireWatchList(t)
			}
			var plan faults.Plan
			if tt.plan != "" {
				d, err := faults.ParseFault(tt.plan)
				if err != nil {
					t.Fatalf("ParseFault(%q): %v", tt.plan, err)
				}
				plan.Decisions = append(plan.Decisions, d)
			}
			synctest.Test(t, func(t *testing.T) {
				ctx, cancel := context.WithCancel(t.Context())
				defer cancel()
				var mu sync.Mutex
				var begun []StormReport
				srv := New(smallHistory(t), WithPlan(plan), WithStormHandler(func(r StormReport) {
					mu.Lock()
					begun = append(begun, r)
					mu.Unlock()
					cancel()
				}))
				capped := &cappedTransport{rt: srv.Transport(), max: 20000, cancel: cancel}
				cs := clientFor(t, capped)
				var inf cache.SharedIndexInformer
				var wg sync.WaitGroup
				if tt.watchList {
					inf = informers.NewSharedInformerFactory(cs, 0).Core().V1().ConfigMaps().Informer()
				} else {
					inf = cache.NewSharedIndexInformer(listWatch(cs, false), &corev1.ConfigMap{}, 0, cache.Indexers{})
				}
				// client-go's default handler sleeps out of the bubble's time
				if err := inf.SetWatchErrorHandlerWithContext(func(context.Context, *cache.Reflector, error) {}); err != nil {
					t.Fatal(err)
				}
				wg.Go(func() { inf.RunWithContext(ctx) })
				select {
				case <-ctx.Done():
				case <-time.After(tt.run):
				}
				cancel()
				wg.Wait()
				t.Logf("requests: %d, storms %v", capped.n.Load(), srv.Storms())
				mu.Lock()
				defer mu.Unlock()
				if capped.n.Load() > capped.max {
					t.Errorf("requests: got more than %d, want the storm stopped before", capped.max)
				}
				if got := len(begun) > 0; got != tt.storm {
					t.Fatalf("storm: got %v (%v; %d requests), want %v", got, begun, capped.n.Load(), tt.storm)
				}
				if !tt.storm {
					if s := srv.Storms(); len(s) > 0 {
						t.Errorf("Storms: got %v, want none", s)
					}
					return
				}
				r := begun[0]
				if r.Resource.Resource != "configmaps" || r.WatchLists != r.Requests || r.EndedBeforeInitialEventsEnd != r.Requests || r.Requests <= DefaultStormLimit {
					t.Errorf("storm: got %s (%+v), want more than %d WatchList requests for configmaps, each ending before initial-events-end", r, r, DefaultStormLimit)
				}
				if s, ok := srv.Storm(); !ok || s.Episode != 1 || s.Requests < r.Requests {
					t.Errorf("Storm: got %+v, %v, want episode 1 going on with at least %d requests", s, ok, r.Requests)
				}
			})
		})
	}
}
