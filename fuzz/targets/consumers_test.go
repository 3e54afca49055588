package targets

import (
	"context"
	"errors"
	"sort"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/pager"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// planted returns a target of name whose run is run: a consumer target
// with a bug planted, or its clean twin.
func planted(name string, run func(context.Context, *harness.Env) error) harness.Target {
	return harness.Target{Name: name, Doc: "a planted consumer", Run: run, WatchListGate: true}
}

// handlerCache registers a handler that keeps its own store of what it is
// told, each object as edit makes it. Deletes are applied unless
// dropDeletes. That store is the probe's.
func handlerCache(edit func(any) any, dropDeletes bool) registerFunc {
	return func(p *harness.Probe, inf cache.SharedIndexInformer) error {
		own := cache.NewStore(cache.DeletionHandlingMetaNamespaceKeyFunc)
		put := func(obj any) { _ = own.Update(edit(obj)) }
		_, err := p.AddEventHandler(inf, cache.ResourceEventHandlerFuncs{
			AddFunc:    put,
			UpdateFunc: func(_, obj any) { put(obj) },
			DeleteFunc: func(obj any) {
				if !dropDeletes {
					_ = own.Delete(obj)
				}
			},
		})
		p.SetStore(own.List)
		return err
	}
}

// same is an edit that keeps an object as it is.
func same(obj any) any { return obj }

// annotated is an edit that adds an annotation of the consumer's to a
// metadata object's copy.
func annotated(obj any) any {
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return obj
	}
	c := m.DeepCopy()
	c.Annotations = map[string]string{"planted": "yes"}
	return c
}

// withoutData is an edit that drops an unstructured object's data.
func withoutData(obj any) any {
	u, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return obj
	}
	c := u.DeepCopy()
	unstructured.RemoveNestedField(c.Object, "data")
	return c
}

// firstPageKept is a page function for a poller that caches its first
// page. The first page of every list after the first is the first list's
// first page, with the new list's continue token.
func firstPageKept(fn pager.ListPageFunc) pager.ListPageFunc {
	var first runtime.Object
	return func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		obj, err := fn(ctx, opts)
		if err != nil || opts.Continue != "" {
			return obj, err
		}
		if first == nil {
			first = obj.DeepCopyObject()
			return obj, nil
		}
		list, ok := obj.(*unstructured.UnstructuredList)
		if !ok {
			return obj, nil
		}
		kept := first.DeepCopyObject().(*unstructured.UnstructuredList)
		kept.SetContinue(list.GetContinue())
		kept.SetResourceVersion(list.GetResourceVersion())
		return kept, nil
	}
}

func TestConsumerTargetsPlanted(t *testing.T) {
	t.Parallel()
	h := testutil.MustHistory(t, testutil.Shipped(testutil.TargetCassette))
	dropDeletes := func(ev watch.Event) bool { return ev.Type != watch.Deleted }
	tests := []struct {
		name      string
		target    harness.Target
		plan      string
		watchList bool
		want      []string // the invariants that fire; none for a clean twin
		// handled, for informer-watch-error-handler, is the least number
		// of errors its watch error handler was given (0: not checked)
		handled int
	}{
		{name: "retry-watcher - clean, a 410 at the first watch - relists, every invariant holds - pass",
			target: planted("retry-watcher", runRetryWatcher), plan: "expire-watch:after=0,at=1"},
		{name: "retry-watcher - clean, the stream cut after 2 events - resumes, every invariant holds - pass",
			target: planted("retry-watcher", runRetryWatcher), plan: "close-watch:after=2,at=1"},
		{name: "retry-watcher - DELETED events dropped - a delete lost - fail",
			target: planted("retry-watcher-no-delete", func(ctx context.Context, env *harness.Env) error {
				return retryWatcher(ctx, env, retryWatcherHooks{event: dropDeletes})
			}),
			want: []string{"converged", "no-lost-delete", "live"}},
		{name: "retry-watcher - resumes at the expired resourceVersion after a 410 instead of relisting - a hot loop - fail",
			target: planted("retry-watcher-resume-on-gone", func(ctx context.Context, env *harness.Env) error {
				return retryWatcher(ctx, env, retryWatcherHooks{resumeOnGone: true})
			}),
			plan: "expire-watch:after=0,at=1", want: []string{"no-hot-loop"}},
		{name: "until-with-sync - clean, no fault - every invariant holds - pass",
			target: planted("until-with-sync", runUntilWithSync)},
		{name: "until-with-sync - clean, a 410 at the first watch - relists, every invariant holds - pass",
			target: planted("until-with-sync", runUntilWithSync), plan: "expire-watch:after=0,at=1"},
		{name: "until-with-sync - clean, the stream cut after 2 events - resumes, every invariant holds - pass",
			target: planted("until-with-sync", runUntilWithSync), plan: "close-watch:after=2,at=1"},
		{name: "until-with-sync - clean, WatchList path - every invariant holds - pass",
			target: planted("until-with-sync", runUntilWithSync), watchList: true},
		{name: "until-with-sync - a condition that drops DELETED events - a delete lost - fail",
			target: planted("until-with-sync-no-delete", func(ctx context.Context, env *harness.Env) error {
				return untilWithSync(ctx, env, dropDeletes)
			}),
			want: []string{"converged", "no-lost-delete", "live"}},
		{name: "indexer-informer-watcher - clean, no fault - every invariant holds - pass",
			target: planted("indexer-informer-watcher", runIndexerInformerWatcher)},
		{name: "indexer-informer-watcher - clean, a 410 at the first watch - relists, every invariant holds - pass",
			target: planted("indexer-informer-watcher", runIndexerInformerWatcher), plan: "expire-watch:after=0,at=1"},
		{name: "indexer-informer-watcher - clean, the stream cut after 2 events - resumes, every invariant holds - pass",
			target: planted("indexer-informer-watcher", runIndexerInformerWatcher), plan: "close-watch:after=2,at=1"},
		{name: "indexer-informer-watcher - clean, WatchList path - every invariant holds - pass",
			target: planted("indexer-informer-watcher", runIndexerInformerWatcher), watchList: true},
		{name: "indexer-informer-watcher - DELETED events dropped - a delete lost - fail",
			target: planted("indexer-informer-watcher-no-delete", func(ctx context.Context, env *harness.Env) error {
				return indexerInformerWatcher(ctx, env, informerWatcherHooks{event: dropDeletes})
			}),
			want: []string{"converged", "no-lost-delete", "live"}},
		{name: "indexer-informer-watcher - the controller's HasSynced taken for the consumer's, its events still buffered - synced early - fail",
			target: planted("indexer-informer-watcher-sync-early", func(ctx context.Context, env *harness.Env) error {
				return indexerInformerWatcher(ctx, env, informerWatcherHooks{syncEarly: true})
			}),
			want: []string{"synced-after-initial"}},
		{name: "informer-watch-error-handler - clean, no fault - every invariant holds - pass",
			target: planted("informer-watch-error-handler", runInformerWatchErrorHandler)},
		{name: "informer-watch-error-handler - clean, the first LIST answered 500 - handler called, backs off and retries, every invariant holds - pass",
			target: planted("informer-watch-error-handler", runInformerWatchErrorHandler), plan: "http-error:code=500,at=0", handled: 1},
		{name: "informer-watch-error-handler - clean, the first watch answered 500 - handler called, relists, every invariant holds - pass",
			target: planted("informer-watch-error-handler", runInformerWatchErrorHandler), plan: "http-error:code=500,at=1", handled: 1},
		{name: "informer-watch-error-handler - clean, WatchList path, the first request answered 500 - falls back to a LIST, every invariant holds - pass",
			target: planted("informer-watch-error-handler", runInformerWatchErrorHandler), plan: "http-error:code=500,at=0", watchList: true},
		{name: "informer-watch-error-handler - a handler that blocks until the run ends instead of returning - the informer never retries - fail",
			target: planted("informer-watch-error-handler-blocks", func(ctx context.Context, env *harness.Env) error {
				return informerWatchErrorHandler(ctx, env, func(ctx context.Context, _ error) { <-ctx.Done() })
			}),
			plan: "http-error:code=500,at=0", handled: 1, want: []string{"converged", "live"}},
		{name: "list-pager - clean, a continue token expired - a full list, every invariant holds - pass",
			target: planted("list-pager", runListPager), plan: "expire-continue:at=1"},
		{name: "list-pager - the first page of the first list kept - a list of two states - fail",
			target: planted("list-pager-first-page-kept", func(ctx context.Context, env *harness.Env) error {
				return listPager(ctx, env, firstPageKept)
			}),
			want: []string{"converged", "live", "consistent-list"}},
		{name: "metadata-informer - clean handler cache - every invariant holds - pass",
			target: planted("metadata-cache", func(ctx context.Context, env *harness.Env) error {
				return metadataInformer(ctx, env, handlerCache(same, false))
			}), watchList: true},
		{name: "metadata-informer - a handler cache that adds its own annotation - metadata differ - fail",
			target: planted("metadata-cache-annotated", func(ctx context.Context, env *harness.Env) error {
				return metadataInformer(ctx, env, handlerCache(annotated, false))
			}), watchList: true, want: []string{"converged"}},
		{name: "metadata-informer - a handler cache that ignores deletes - keys left over - fail",
			target: planted("metadata-cache-no-delete", func(ctx context.Context, env *harness.Env) error {
				return metadataInformer(ctx, env, handlerCache(same, true))
			}), want: []string{"converged", "live"}},
		{name: "dynamic-informer - clean handler cache - every invariant holds - pass",
			target: planted("dynamic-cache", func(ctx context.Context, env *harness.Env) error {
				return dynamicInformer(ctx, env, handlerCache(same, false))
			})},
		{name: "dynamic-informer - a handler cache that drops data - content differs - fail",
			target: planted("dynamic-cache-no-data", func(ctx context.Context, env *harness.Env) error {
				return dynamicInformer(ctx, env, handlerCache(withoutData, false))
			}), watchList: true, want: []string{"converged"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := faults.ParseText(tc.plan)
			if err != nil {
				t.Fatalf("plan: got error %v, want none", err)
			}
			obs := harness.Observe(t, harness.Spec{History: h, Plan: plan, Target: tc.target, WatchList: tc.watchList})
			if tc.plan != "" && obs.LastFaultAt < 0 {
				t.Errorf("plan %q: got no fault fired, want it to fire", tc.plan)
			}
			var fired []string
			for name, err := range oracle.Judge(obs) {
				if err != nil && !errors.Is(err, oracle.ErrNotJudged) {
					fired = append(fired, name)
					t.Logf("%s: %v", name, err)
				}
			}
			if tc.handled > 0 {
				errs, ok := obs.Exposed.(*WatchErrors)
				switch {
				case !ok:
					t.Errorf("exposed: got %T, want *WatchErrors", obs.Exposed)
				case errs.Count() < tc.handled:
					t.Errorf("errors handled: got %d, want at least %d", errs.Count(), tc.handled)
				}
			}
			sort.Strings(fired)
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			if len(fired) == 0 && len(want) != 0 || len(want) == 0 && len(fired) != 0 || !subset(want, fired) {
				t.Errorf("invariants that fired: got %v, want %v", fired, want)
			}
		})
	}
}

// subset reports whether every name of want is in got.
func subset(want, got []string) bool {
	in := map[string]bool{}
	for _, g := range got {
		in[g] = true
	}
	for _, w := range want {
		if !in[w] {
			return false
		}
	}
	return true
}
