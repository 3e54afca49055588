package targets

import (
	"context"
	"sync"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/pager"
)

// PollPeriod is how often, in virtual time, the list-pager target lists
// again once a watch told it something changed.
const PollPeriod = 10 * time.Second

// PageSize is the list-pager target's page size: small, so that every
// shipped cassette's LIST is served in pages.
const PageSize = 2

// runListPager is a poller built on client-go's ListPager (PageSize 2,
// FullListIfExpired), like kubectl get in a loop or a controller's resync
// by relist. Its store is the last complete list. It makes the list again
// every PollPeriod of virtual time while a watch has told it of a change
// since the last. The watch only wakes it. A replay's state moves as its
// answers reach newer positions, so a poller that never watched would list
// the first state forever.
func runListPager(ctx context.Context, env *harness.Env) error {
	return listPager(ctx, env, nil)
}

// listPager is runListPager; pageFn, when set, wraps the pager's page
// function (a test's planted bug).
func listPager(ctx context.Context, env *harness.Env, pageFn func(pager.ListPageFunc) pager.ListPageFunc) error {
	lw, err := env.SharedListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return err
	}
	lwc := cache.ToListerWatcherWithContext(lw)
	fn := pager.ListPageFunc(lwc.ListWithContext)
	if pageFn != nil {
		fn = pageFn(fn)
	}
	p := pager.New(fn)
	p.PageSize = PageSize
	p.FullListIfExpired = true
	c := newListConsumer(env.Probe)

	changed := make(chan struct{}, 1) // a watch saw a change since the last list
	var wg sync.WaitGroup
	defer wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	watching := false
	retry := newBackoff()
	for ctx.Err() == nil {
		obj, _, err := p.List(ctx, metav1.ListOptions{})
		if err != nil {
			sleep(ctx, retry.Step())
			continue
		}
		retry = newBackoff()
		rv, err := c.replace(obj)
		if err != nil {
			return err
		}
		if !watching {
			watching = true
			wg.Go(func() { watchChanges(ctx, lwc, rv, changed) })
		}
		// Wait for a change, then for the next poll.
		select {
		case <-ctx.Done():
		case <-changed:
			sleep(ctx, PollPeriod)
		}
	}
	return nil
}

// watchChanges watches from rv until ctx is done. It sends on changed
// (without blocking) each time an event arrives.
//   - A close resumes from the last event's resourceVersion.
//   - A watch that ends with an ERROR starts again from the newest state
//     ("").
//   - One that fails to open, ends with an ERROR or brought nothing is
//     tried again after the backoff.
func watchChanges(ctx context.Context, lw cache.ListerWatcherWithContext, rv string, changed chan<- struct{}) {
	retry := newBackoff()
	for ctx.Err() == nil {
		w, err := lw.WatchWithContext(ctx, metav1.ListOptions{ResourceVersion: rv, AllowWatchBookmarks: true})
		if err != nil {
			sleep(ctx, retry.Step())
			continue
		}
		events := 0
		for ev := range w.ResultChan() {
			switch ev.Type {
			case watch.Added, watch.Modified, watch.Deleted:
				events++
				if v := rvOf(ev.Object); v != "" {
					rv = v
				}
				select {
				case changed <- struct{}{}:
				default:
				}
			case watch.Bookmark:
				if v := rvOf(ev.Object); v != "" {
					rv = v
				}
			case watch.Error:
				// too old, or a failure: watch the newest state, and poll
				// once more in case something was missed
				rv = ""
				select {
				case changed <- struct{}{}:
				default:
				}
			}
		}
		w.Stop()
		if events > 0 && rv != "" {
			retry = newBackoff()
		} else {
			sleep(ctx, retry.Step()) // an ERROR, or a watch that ended with nothing
		}
	}
}
