package targets

import (
	"context"
	"sync"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/watchlist"
)

// ResyncPeriod is the resync period of the informer-resync target, in
// virtual time. Every ResyncPeriod its handler is told of every stored
// object again, as an update whose old and new object are the same.
const ResyncPeriod = 30 * time.Second

// runInformerResync runs a SharedIndexInformer with a resync period whose
// only handler is the probe's recording one. A resync delivers OnUpdate
// with the stored object as both old and new. The probe records an update
// at the resourceVersion delivered last. no-time-travel accepts it (equal
// is not older), and no other invariant counts it as a change.
func runInformerResync(ctx context.Context, env *harness.Env) error {
	inf, err := recordingInformer(env, ResyncPeriod)
	if err != nil {
		return err
	}
	inf.RunWithContext(ctx)
	return nil
}

// runLateHandler runs a SharedIndexInformer with no handler. It waits for
// it to sync as a controller does (cache.WaitFor its HasSyncedChecker).
// Only then does it register the probe's recording handler. client-go
// replays the informer's store to it as adds in the initial list, and the
// probe's HasSynced is the registration's.
//
// Until the handler is registered, the informer's watch events after its
// initial list are held back (see heldListerWatcher). So the handler joins
// at the state of the first listing, wherever the faults put that listing.
// That is the state synced-after-initial judges it against.
func runLateHandler(ctx context.Context, env *harness.Env) error {
	return lateHandler(ctx, env, nil)
}

// lateHandler is runLateHandler; joining, when set, is called with the
// informer just before the handler is registered.
func lateHandler(ctx context.Context, env *harness.Env, joining func(cache.SharedIndexInformer)) error {
	lw, err := env.SharedListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return err
	}
	registered := make(chan struct{})
	inf := cache.NewSharedIndexInformer(newHeldListerWatcher(lw, registered), &unstructured.Unstructured{}, 0, cache.Indexers{})
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { inf.RunWithContext(ctx) })
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		return nil // stopped before the informer synced
	}
	if joining != nil {
		joining(inf)
	}
	_, err = env.Probe.AddEventHandler(inf, nil)
	close(registered)
	return err
}

// heldListerWatcher is a ListerWatcher whose watches hold back events
// until released is closed. They hold every event that is not part of a
// WatchList initial list. The initial list is the events up to and
// including the initial-events-end bookmark of a watch asking for initial
// events. It keeps its parent's opt-out of WatchList.
type heldListerWatcher struct {
	parent      cache.ListerWatcherWithContext
	unsupported bool
	released    <-chan struct{}
}

// newHeldListerWatcher returns lw holding its watch events until released
// is closed.
func newHeldListerWatcher(lw cache.ListerWatcher, released <-chan struct{}) *heldListerWatcher {
	return &heldListerWatcher{
		parent:      cache.ToListerWatcherWithContext(lw),
		unsupported: watchlist.DoesClientNotSupportWatchListSemantics(lw),
		released:    released,
	}
}

// List lists through the parent.
func (h *heldListerWatcher) List(o metav1.ListOptions) (runtime.Object, error) {
	return h.parent.ListWithContext(context.Background(), o)
}

// ListWithContext lists through the parent.
func (h *heldListerWatcher) ListWithContext(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
	return h.parent.ListWithContext(ctx, o)
}

// Watch watches through the parent, holding events (see heldListerWatcher).
func (h *heldListerWatcher) Watch(o metav1.ListOptions) (watch.Interface, error) {
	return h.WatchWithContext(context.Background(), o)
}

// WatchWithContext watches through the parent, holding events (see
// heldListerWatcher).
func (h *heldListerWatcher) WatchWithContext(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
	w, err := h.parent.WatchWithContext(ctx, o)
	if err != nil {
		return nil, err
	}
	select {
	case <-h.released:
		return w, nil // nothing to hold any more
	default:
	}
	initial := o.SendInitialEvents != nil && *o.SendInitialEvents
	hw := &heldWatch{parent: w, out: make(chan watch.Event), stop: make(chan struct{})}
	go hw.forward(initial, h.released)
	return hw, nil
}

// IsWatchListSemanticsUnSupported says whether the parent opted out of
// WatchList.
func (h *heldListerWatcher) IsWatchListSemanticsUnSupported() bool { return h.unsupported }

// heldWatch forwards a watch's events, holding those after the initial
// list until released.
type heldWatch struct {
	parent watch.Interface
	out    chan watch.Event
	stop   chan struct{}
	once   sync.Once
}

// Stop stops the parent watch and the forwarding.
func (w *heldWatch) Stop() {
	w.once.Do(func() {
		close(w.stop)
		w.parent.Stop()
	})
}

// ResultChan returns the forwarded events.
func (w *heldWatch) ResultChan() <-chan watch.Event { return w.out }

// forward sends the parent's events on. Each waits for released to be
// closed unless it belongs to the initial list. It ends when the parent's
// channel closes or the watch is stopped.
func (w *heldWatch) forward(initial bool, released <-chan struct{}) {
	defer close(w.out)
	for ev := range w.parent.ResultChan() {
		if initial {
			initial = !isInitialEventsEnd(ev)
		} else {
			select {
			case <-released:
			case <-w.stop:
				return
			}
		}
		select {
		case w.out <- ev:
		case <-w.stop:
			return
		}
	}
}

// isInitialEventsEnd reports whether ev is the bookmark that ends a
// WatchList stream's initial events.
func isInitialEventsEnd(ev watch.Event) bool {
	if ev.Type != watch.Bookmark {
		return false
	}
	m, err := meta.Accessor(ev.Object)
	return err == nil && m.GetAnnotations()[metav1.InitialEventsAnnotationKey] == "true"
}
