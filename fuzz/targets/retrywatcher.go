package targets

import (
	"context"
	"fmt"
	"math"
	"sync/atomic"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	watchtools "k8s.io/client-go/tools/watch"
)

// Backoff of the retry-watcher and list-pager targets. They wait before
// they list (or watch) again after a LIST or a watch fails, or after a
// RetryWatcher stops before it delivered anything. The wait goes from
// FirstRetryDelay doubling to MaxRetryDelay, and back to FirstRetryDelay
// once they make progress. This is client-go's reflector's backoff (800 ms
// doubling, capped at 30 s). A consumer that relists needs it as much:
// otherwise a 410 that keeps coming back is a hot loop of its own.
const (
	FirstRetryDelay = 800 * time.Millisecond
	MaxRetryDelay   = 30 * time.Second
)

// newBackoff returns the targets' retry delays: FirstRetryDelay
// doubling up to MaxRetryDelay (a fresh one starts over).
func newBackoff() wait.Backoff {
	return wait.Backoff{Duration: FirstRetryDelay, Factor: 2, Steps: math.MaxInt32, Cap: MaxRetryDelay}
}

// runRetryWatcher is a consumer of client-go's RetryWatcher. It LISTs for
// its initial state and resourceVersion. Then it applies the events of a
// RetryWatcher started at that resourceVersion to its own store. The
// RetryWatcher resumes from the last resourceVersion after a close. It
// stops at a 410 Gone, which it never retries: its doc says it "is not
// resilient to etcd cache not having the resource version anymore". Then
// the consumer lists again and starts a new one from the new list.
func runRetryWatcher(ctx context.Context, env *harness.Env) error {
	return retryWatcher(ctx, env, retryWatcherHooks{})
}

// retryWatcherHooks plant bugs in the retry-watcher consumer, for tests.
type retryWatcherHooks struct {
	// event, when set, is given each event before the consumer applies
	// it; false drops it.
	event func(watch.Event) bool
	// resumeOnGone resumes a RetryWatcher from the last resourceVersion
	// after a 410 instead of listing again.
	resumeOnGone bool
}

// retryWatcher is runRetryWatcher with bugs planted by hooks.
func retryWatcher(ctx context.Context, env *harness.Env, hooks retryWatcherHooks) error {
	lw, err := env.SharedListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return err
	}
	lwc := cache.ToListerWatcherWithContext(lw)
	c := newListConsumer(env.Probe)
	rv := ""
	retry := newBackoff()
	for ctx.Err() == nil {
		if rv == "" || !hooks.resumeOnGone {
			obj, err := lwc.ListWithContext(ctx, metav1.ListOptions{})
			if err != nil {
				sleep(ctx, retry.Step())
				continue
			}
			if rv, err = c.replace(obj); err != nil {
				return err
			}
		}
		rw, err := watchtools.NewRetryWatcherWithContext(ctx, rv, lwc)
		if err != nil {
			return fmt.Errorf("%w: retry watcher at rv %q: %w", harness.ErrTarget, rv, err)
		}
		progressed := false
		for ev := range rw.ResultChan() {
			if hooks.event != nil && !hooks.event(ev) {
				continue
			}
			if next, ok := c.apply(ev); ok {
				rv, progressed = next, true
			}
		}
		rw.Stop()
		<-rw.Done()
		if progressed {
			retry = newBackoff()
		} else if !hooks.resumeOnGone {
			sleep(ctx, retry.Step()) // stopped (a 410) before it delivered anything
		}
	}
	return nil
}

// sleep waits d or until ctx is done.
func sleep(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// listConsumer keeps a store from complete lists and watch events and
// tells a probe what changed in it.
type listConsumer struct {
	probe  *harness.Probe
	store  cache.Store
	synced atomic.Bool // a complete list was applied (or, for a syncWaiter, seen)
	// noViews keeps the consumer from recording store views. Its store passes
	// through states no answer served, and its client-go consumer promises no
	// atomic view (a syncWaiter's).
	noViews bool
}

// newListConsumer returns a consumer with an empty store, registered with
// probe as its store and HasSynced.
func newListConsumer(probe *harness.Probe) *listConsumer {
	c := &listConsumer{probe: probe, store: cache.NewStore(cache.MetaNamespaceKeyFunc)}
	probe.SetStore(c.store.List)
	probe.SetSynced(c.synced.Load)
	return c
}

// replace makes the store the items of list, telling the probe of each
// key added, changed (another resourceVersion) or gone, and returns the
// list's resourceVersion. The first list's adds are its initial list.
func (c *listConsumer) replace(list runtime.Object) (string, error) {
	items, err := meta.ExtractList(list)
	if err != nil {
		return "", fmt.Errorf("%w: list %T: %w", harness.ErrTarget, list, err)
	}
	m, err := meta.ListAccessor(list)
	if err != nil {
		return "", fmt.Errorf("%w: list %T: %w", harness.ErrTarget, list, err)
	}
	synced := c.synced.Load()
	seen := map[string]bool{}
	for _, obj := range items {
		key, err := cache.MetaNamespaceKeyFunc(obj)
		if err != nil {
			return "", fmt.Errorf("%w: key of %T: %w", harness.ErrTarget, obj, err)
		}
		seen[key] = true
		old, exists, _ := c.store.GetByKey(key)
		switch {
		case !exists:
			c.probe.Add(obj, synced)
		case rvOf(old) != rvOf(obj):
			c.probe.Update(obj, synced)
		default:
			continue
		}
		if err := c.store.Add(obj); err != nil {
			return "", fmt.Errorf("%w: store %s: %w", harness.ErrTarget, key, err)
		}
	}
	for _, key := range c.store.ListKeys() {
		if seen[key] {
			continue
		}
		old, _, _ := c.store.GetByKey(key)
		if err := c.store.Delete(old); err != nil {
			return "", fmt.Errorf("%w: store %s: %w", harness.ErrTarget, key, err)
		}
		c.probe.Delete(old, synced)
	}
	if synced && !c.noViews {
		c.probe.View()
	}
	c.synced.Store(true)
	listed := make([]any, len(items))
	for i, obj := range items {
		listed[i] = obj
	}
	c.probe.Listed(m.GetResourceVersion(), listed)
	return m.GetResourceVersion(), nil
}

// apply applies one watch event to the store and tells the probe (synced
// as the consumer is). It returns the resourceVersion the event moves the
// consumer to. It returns false for an event that moves it nowhere: an
// ERROR. The RetryWatcher ends after a 410, and retries the others itself.
func (c *listConsumer) apply(ev watch.Event) (string, bool) {
	synced := c.synced.Load()
	switch ev.Type {
	case watch.Added, watch.Modified:
		_, exists, _ := c.store.Get(ev.Object)
		if err := c.store.Update(ev.Object); err != nil {
			c.probe.Error(fmt.Errorf("store %s event: %w", ev.Type, err))
			return "", false
		}
		if exists {
			c.probe.Update(ev.Object, synced)
		} else {
			c.probe.Add(ev.Object, synced)
		}
	case watch.Deleted:
		if err := c.store.Delete(ev.Object); err != nil {
			c.probe.Error(fmt.Errorf("store %s event: %w", ev.Type, err))
			return "", false
		}
		c.probe.Delete(ev.Object, synced)
	default:
		// an ERROR (the RetryWatcher ends after it: the consumer lists
		// again) or a bookmark (the RetryWatcher keeps its resourceVersion)
		return "", false
	}
	if synced && !c.noViews {
		c.probe.View()
	}
	return rvOf(ev.Object), true
}

// rvOf returns obj's resourceVersion ("" when obj is no object).
func rvOf(obj any) string {
	m, err := meta.Accessor(obj)
	if err != nil {
		return ""
	}
	return m.GetResourceVersion()
}
