package replayer

import (
	"context"
	"sort"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// uidState renders objects as sorted "key@rv uid" strings.
func uidState(objs []any) []string {
	out := make([]string, 0, len(objs))
	for _, o := range objs {
		m, err := meta.Accessor(o)
		if err != nil {
			continue
		}
		k, _ := cache.MetaNamespaceKeyFunc(o)
		out = append(out, k+"@"+m.GetResourceVersion()+" "+string(m.GetUID()))
	}
	sort.Strings(out)
	return out
}

// TestFaultInformerConverges runs a shared informer against each legal
// fault: it must end with the served history's final state.
func TestFaultInformerConverges(t *testing.T) {
	tests := []struct {
		name      string
		plan      string
		watchList bool
	}{
		{name: "drop-bookmark - informer converges - pass", plan: "drop-bookmark"},
		{name: "drop-all-bookmarks - WatchList informer converges - pass", plan: "drop-all-bookmarks", watchList: true},
		{name: "close-watch - informer converges - pass", plan: "close-watch:after=2,watch=1"},
		{name: "close-watch - WatchList informer converges - pass", plan: "close-watch:after=5,watch=1", watchList: true},
		{name: "expire-watch - informer converges - pass", plan: "expire-watch:after=1,watch=1"},
		{name: "too-large-rv - informer converges - pass", plan: "too-large-rv:list=1"},
		{name: "http-error - 429 - informer converges - pass", plan: "http-error:code=429,watch=1"},
		{name: "http-error - 500 - informer converges - pass", plan: "http-error:code=500,list=1"},
		{name: "reset - informer converges - pass", plan: "reset:watch=1,frame=3"},
		{name: "delay - informer converges - pass", plan: "delay:ms=10000,frame=2"},
		{name: "watchlist-unsupported - WatchList informer falls back and converges - pass", plan: "watchlist-unsupported", watchList: true},
		{name: "opaque-rv - informer converges - pass", plan: "opaque-rv"},
		{name: "opaque-rv - WatchList informer converges - pass", plan: "opaque-rv", watchList: true},
		{name: "recreate - informer converges - pass", plan: "recreate:object=0,watch=1"},
		{name: "recreate - WatchList informer converges - pass", plan: "recreate:object=1,watch=2", watchList: true},
	}
	// utilruntime's error handlers include a backoff whose clock started
	// outside the bubble: a reflector's first list error there would sleep
	// for years of virtual time.
	handlers := utilruntime.ErrorHandlers
	utilruntime.ErrorHandlers = nil
	t.Cleanup(func() { utilruntime.ErrorHandlers = handlers })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.watchList {
				testutil.RequireWatchList(t)
			}
			plan, err := faults.ParseText(tt.plan)
			if err != nil {
				t.Fatalf("plan: %v", err)
			}
			synctest.Test(t, func(t *testing.T) {
				srv := New(smallHistory(t), WithPlan(plan))
				srv.opts.tooLargeWait = 0
				rl := &requestLog{rt: srv.Transport()}
				cs := clientFor(t, rl)
				ctx, cancel := context.WithCancel(t.Context())
				inf := cache.NewSharedIndexInformer(listWatch(cs, tt.watchList), &corev1.ConfigMap{}, 0, cache.Indexers{})
				var wg sync.WaitGroup
				wg.Go(func() { inf.RunWithContext(ctx) })
				defer wg.Wait()
				defer cancel()
				// until the fault fires (a re-watch comes after a watch
				// timeout of 5 to 10 minutes), then long enough to recover
				for start := time.Now(); len(srv.Fired()) == 0 && time.Since(start) < time.Hour; {
					time.Sleep(time.Minute)
				}
				time.Sleep(2 * time.Minute)
				synctest.Wait()
				if len(srv.Fired()) == 0 {
					t.Errorf("fired: got nothing, want the fault (requests %q)", rl.requests())
				}
				if got, want := uidState(inf.GetStore().List()), stateOf(srv.Served().Logs[0]); !equalStrings(got, want) {
					t.Errorf("informer state:\ngot  %q\nwant %q\nrequests %q\nfired %q", got, want, rl.requests(), firedStrings(srv.Fired()))
				}
			})
		})
	}
}
