package harness

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/internal/testutil"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

func TestProbeHandler(t *testing.T) {
	t.Parallel()
	cm := testutil.ConfigMap("ns", "a", "7")
	tomb := cache.DeletedFinalStateUnknown{Key: "ns/a", Obj: testutil.ConfigMap("ns", "a", "5")}
	tests := []struct {
		name       string
		handler    cache.ResourceEventHandler
		registered bool // the registration exists and has synced
		deliver    func(h cache.ResourceEventHandler)
		want       observe.Delivery // At left out
		wantPanic  string           // "" for none
	}{
		{name: "probe handler - add of the initial list - not synced - pass", handler: testutil.MirrorHandler(false), registered: true,
			deliver: func(h cache.ResourceEventHandler) { h.OnAdd(cm, true) },
			want:    observe.Delivery{Op: observe.OpAdd, Key: "ns/a", RV: "7", UID: "uid-a", Synced: false}},
		{name: "probe handler - add after the initial list - synced - pass", handler: testutil.MirrorHandler(false), registered: true,
			deliver: func(h cache.ResourceEventHandler) { h.OnAdd(cm, false) },
			want:    observe.Delivery{Op: observe.OpAdd, Key: "ns/a", RV: "7", UID: "uid-a", Synced: true}},
		{name: "probe handler - update before the registration exists - not synced - pass", handler: testutil.MirrorHandler(false),
			deliver: func(h cache.ResourceEventHandler) { h.OnUpdate(testutil.ConfigMap("ns", "a", "5"), cm) },
			want:    observe.Delivery{Op: observe.OpUpdate, Key: "ns/a", RV: "7", UID: "uid-a", Synced: false}},
		{name: "probe handler - update after the registration synced - the new object, synced - pass", handler: testutil.MirrorHandler(false), registered: true,
			deliver: func(h cache.ResourceEventHandler) { h.OnUpdate(testutil.ConfigMap("ns", "a", "5"), cm) },
			want:    observe.Delivery{Op: observe.OpUpdate, Key: "ns/a", RV: "7", UID: "uid-a", Synced: true}},
		{name: "probe handler - delete - recorded - pass", handler: testutil.MirrorHandler(false), registered: true,
			deliver: func(h cache.ResourceEventHandler) { h.OnDelete(cm) },
			want:    observe.Delivery{Op: observe.OpDelete, Key: "ns/a", RV: "7", UID: "uid-a", Synced: true}},
		{name: "probe handler - tombstone, fixed handler - recorded, no panic - pass", handler: testutil.MirrorHandler(true), registered: true,
			deliver: func(h cache.ResourceEventHandler) { h.OnDelete(tomb) },
			want:    observe.Delivery{Op: observe.OpTombstone, Key: "ns/a", RV: "5", UID: "uid-a", Synced: true}},
		{name: "probe handler - tombstone, planted handler - recorded, panic recovered with the object's type - fail", handler: testutil.MirrorHandler(false), registered: true,
			deliver:   func(h cache.ResourceEventHandler) { h.OnDelete(tomb) },
			want:      observe.Delivery{Op: observe.OpTombstone, Key: "ns/a", RV: "5", UID: "uid-a", Synced: true},
			wantPanic: "interface conversion: interface {} is cache.DeletedFinalStateUnknown, not *v1.ConfigMap (object cache.DeletedFinalStateUnknown)"},
		{name: "probe handler - no handler - recorded only - pass", registered: true,
			deliver: func(h cache.ResourceEventHandler) { h.OnDelete(tomb) },
			want:    observe.Delivery{Op: observe.OpTombstone, Key: "ns/a", RV: "5", UID: "uid-a", Synced: true}},
		{name: "probe handler - update handler panics - panic recovered with the new object's type - fail", registered: true,
			handler: cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, _ any) { panic("boom") }},
			deliver: func(h cache.ResourceEventHandler) { h.OnUpdate(cm, cm) },
			want:    observe.Delivery{Op: observe.OpUpdate, Key: "ns/a", RV: "7", UID: "uid-a", Synced: true}, wantPanic: "boom (object *v1.ConfigMap)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := NewProbe(time.Now())
			w := &probeHandler{probe: p, handler: tc.handler}
			if tc.registered {
				w.registered(func() bool { return true })
			}
			tc.deliver(w)
			got := p.Deliveries()
			if len(got) != 1 {
				t.Fatalf("deliveries: got %d (%+v), want 1", len(got), got)
			}
			got[0].At = 0
			if got[0] != tc.want {
				t.Errorf("delivery: got %+v, want %+v", got[0], tc.want)
			}
			var wantPanics []string
			if tc.wantPanic != "" {
				wantPanics = []string{tc.wantPanic}
			}
			if fmt.Sprint(p.panics) != fmt.Sprint(wantPanics) {
				t.Errorf("panics: got %q, want %q", p.panics, wantPanics)
			}
		})
	}
}

func TestProbeAddEventHandler(t *testing.T) {
	t.Parallel()
	// client-go reads klog's settings, which Observe's last restore
	// writes: hold them as Observe does, until the subtests end.
	t.Cleanup(QuietClientGo())
	tests := []struct {
		name    string
		stopped bool // the informer ran and stopped before the handler is added
		wantErr bool
	}{
		{name: "add event handler - informer not started - synced and store wired - pass"},
		{name: "add event handler - informer stopped - error wraps ErrTarget - fail", stopped: true, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			inf := cache.NewSharedIndexInformer(sliceListWatch(*testutil.ConfigMap("ns", "a", "1")), &corev1.ConfigMap{}, 0, cache.Indexers{})
			if tc.stopped {
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				inf.RunWithContext(ctx)
			}
			p := NewProbe(time.Now())
			reg, err := p.AddEventHandler(inf, nil)
			if tc.wantErr {
				if !errors.Is(err, ErrTarget) {
					t.Fatalf("AddEventHandler: got error %v, want one wrapping %v", err, ErrTarget)
				}
				return
			}
			if err != nil {
				t.Fatalf("AddEventHandler: got error %v, want none", err)
			}
			if reg == nil {
				t.Fatalf("registration: got nil, want one")
			}
			if p.HasSynced() {
				t.Errorf("probe HasSynced before the informer runs: got true, want false")
			}
			if got, err := p.Store(); err != nil || len(got) != 0 {
				t.Errorf("probe store before the informer runs: got %v (error %v), want empty", got, err)
			}
		})
	}
}

// sliceListWatch lists objs at resourceVersion "1" and watches nothing.
func sliceListWatch(objs ...corev1.ConfigMap) *cache.ListWatch {
	return &cache.ListWatch{
		ListWithContextFunc: func(context.Context, metav1.ListOptions) (runtime.Object, error) {
			return &corev1.ConfigMapList{ListMeta: metav1.ListMeta{ResourceVersion: "1"}, Items: objs}, nil
		},
		WatchFuncWithContext: func(context.Context, metav1.ListOptions) (watch.Interface, error) {
			return watch.NewFake(), nil
		},
	}
}
