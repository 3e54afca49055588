package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"reflect"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
	"github.com/lwreplay/lwreplay/replayer"
)

// watchListClient says whether client-go's WatchList client is on in this
// process (it is by default; the environment can turn it off).
func watchListClient() bool { return os.Getenv(testutil.WatchListEnv) != "false" }

// requestLog notes the query of every request it passes on.
type requestLog struct {
	rt      http.RoundTripper
	mu      sync.Mutex
	queries []string
}

func (l *requestLog) RoundTrip(req *http.Request) (*http.Response, error) {
	l.mu.Lock()
	l.queries = append(l.queries, req.URL.RawQuery)
	l.mu.Unlock()
	return l.rt.RoundTrip(req)
}

func (l *requestLog) first() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.queries) == 0 {
		return ""
	}
	return l.queries[0]
}

// replayResult is what an informer run against the replayer ended with.
type replayResult struct {
	state map[string]map[string]any
	// firstQuery is the query of the informer's first request.
	firstQuery string
}

// replayInformer runs a client-go informer for l against a replayer of h,
// in-process inside a synctest bubble. The informer uses a dynamic
// client, WatchList or LIST then WATCH. It runs until it has synced and
// every recorded event has been delivered, and returns its store.
func replayInformer(t *testing.T, h *history.History, l *history.Log, watchList bool) replayResult {
	t.Helper()
	var res replayResult
	synctest.Test(t, func(t *testing.T) {
		srv := replayer.New(h)
		rl := &requestLog{rt: srv.Transport()}
		dyn, err := dynamic.NewForConfig(&rest.Config{Host: "http://replay.invalid", Transport: rl})
		if err != nil {
			t.Fatalf("dynamic client: got error %v, want none", err)
		}
		gvr := schema.GroupVersionResource{Group: l.Resource.Group, Version: l.Resource.Version, Resource: l.Resource.Resource}
		ri := dyn.Resource(gvr)
		lw := &cache.ListWatch{
			ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
				return ri.List(ctx, o)
			},
			WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
				return ri.Watch(ctx, o)
			},
		}
		var lwi cache.ListerWatcher = lw
		if !watchList {
			lwi = cache.ToListWatcherWithWatchListSemantics(lw, testutil.NoWatchList{})
		}
		inf := cache.NewSharedIndexInformer(lwi, &unstructured.Unstructured{}, 0, cache.Indexers{})
		ctx, cancel := context.WithCancel(t.Context())
		var wg sync.WaitGroup
		wg.Go(func() { inf.RunWithContext(ctx) })
		defer wg.Wait()
		defer cancel()
		if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			t.Fatalf("informer HasSynced: got false, want true")
		}
		synctest.Wait() // every available event has been delivered
		res.state = map[string]map[string]any{}
		for _, o := range inf.GetStore().List() {
			u, ok := o.(*unstructured.Unstructured)
			if !ok {
				t.Fatalf("store item: got %T, want *unstructured.Unstructured", o)
			}
			m, err := jsonMap(u.Object)
			if err != nil {
				t.Fatal(err)
			}
			res.state[objectKey(u)] = m
		}
		res.firstQuery = rl.first()
	})
	return res
}

// checkFinalStates compares each resource's history's final state in h
// with want, the real cluster's, by resource name.
func checkFinalStates(t *testing.T, h *history.History, resources []history.Resource, want map[string]map[string]map[string]any) {
	t.Helper()
	for _, res := range resources {
		l, ok := h.Log(res)
		if !ok {
			t.Fatalf("%s: got no log, want one", res)
		}
		got, err := historyState(l)
		if err != nil {
			t.Fatal(err)
		}
		compareStates(t, res.Resource+" history final state", got, want[res.Resource])
	}
}

// compareStates fails t when got and want differ in keys, resourceVersions
// or any byte of any object's content.
func compareStates(t *testing.T, what string, got, want map[string]map[string]any) {
	t.Helper()
	g, w := stateSummary(got), stateSummary(want)
	if !reflect.DeepEqual(g, w) {
		t.Errorf("%s: objects:\ngot  %d %q\nwant %d %q", what, len(g), g, len(w), w)
		return
	}
	keys := make([]string, 0, len(want))
	for k := range want {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if !reflect.DeepEqual(got[k], want[k]) {
			gj, _ := json.Marshal(got[k])
			wj, _ := json.Marshal(want[k])
			t.Errorf("%s: object %s:\ngot  %s\nwant %s", what, k, gj, wj)
		}
	}
}

// checkReplays replays every log of h through informers, WatchList and
// LIST then WATCH, and compares each store with want[resource] (nil: the
// history's own final state).
func checkReplays(t *testing.T, h *history.History, want map[string]map[string]map[string]any) {
	t.Helper()
	for _, l := range h.Logs {
		w := want[l.Resource.Resource]
		if w == nil {
			var err error
			if w, err = historyState(l); err != nil {
				t.Fatalf("%s: final state: %v", l.Resource, err)
			}
		}
		for _, watchList := range []bool{true, false} {
			mode := "LIST then WATCH"
			if watchList {
				mode = "WatchList"
			}
			t.Run("replay informer - "+l.Resource.String()+", "+mode+" - final state - pass", func(t *testing.T) {
				res := replayInformer(t, h, l, watchList)
				compareStates(t, "informer store", res.state, w)
				isWatchList := strings.Contains(res.firstQuery, "sendInitialEvents=true")
				if want := watchList && watchListClient(); isWatchList != want {
					t.Errorf("first request %q: got WatchList %v, want %v", res.firstQuery, isWatchList, want)
				}
			})
		}
	}
}
