package fuzz

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/oracle"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// typedConfigMap returns a configmap ns/name at resourceVersion rv.
func typedConfigMap(ns, name, rv string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rv, UID: types.UID("uid-" + name)}}
}

// mirrorHandler is a configmap handler as the tombstone example plants it:
// its delete type-asserts a *corev1.ConfigMap, and panics on a tombstone
// unless it is fixed.
func mirrorHandler(fixed bool) cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok && fixed {
			obj = d.Obj
		}
		_ = obj.(*corev1.ConfigMap).Name
	}}
}

func TestProbeHandler(t *testing.T) {
	t.Parallel()
	cm := typedConfigMap("ns", "a", "7")
	tomb := cache.DeletedFinalStateUnknown{Key: "ns/a", Obj: typedConfigMap("ns", "a", "5")}
	tests := []struct {
		name       string
		handler    cache.ResourceEventHandler
		registered bool // the registration exists and has synced
		deliver    func(h cache.ResourceEventHandler)
		want       oracle.Delivery // At left out
		wantPanic  string          // "" for none
	}{
		{name: "probe handler - add of the initial list - not synced - pass", handler: mirrorHandler(false), registered: true,
			deliver: func(h cache.ResourceEventHandler) { h.OnAdd(cm, true) },
			want:    oracle.Delivery{Op: oracle.OpAdd, Key: "ns/a", RV: "7", UID: "uid-a", Synced: false}},
		{name: "probe handler - add after the initial list - synced - pass", handler: mirrorHandler(false), registered: true,
			deliver: func(h cache.ResourceEventHandler) { h.OnAdd(cm, false) },
			want:    oracle.Delivery{Op: oracle.OpAdd, Key: "ns/a", RV: "7", UID: "uid-a", Synced: true}},
		{name: "probe handler - update before the registration exists - not synced - pass", handler: mirrorHandler(false),
			deliver: func(h cache.ResourceEventHandler) { h.OnUpdate(typedConfigMap("ns", "a", "5"), cm) },
			want:    oracle.Delivery{Op: oracle.OpUpdate, Key: "ns/a", RV: "7", UID: "uid-a", Synced: false}},
		{name: "probe handler - update after the registration synced - the new object, synced - pass", handler: mirrorHandler(false), registered: true,
			deliver: func(h cache.ResourceEventHandler) { h.OnUpdate(typedConfigMap("ns", "a", "5"), cm) },
			want:    oracle.Delivery{Op: oracle.OpUpdate, Key: "ns/a", RV: "7", UID: "uid-a", Synced: true}},
		{name: "probe handler - delete - recorded - pass", handler: mirrorHandler(false), registered: true,
			deliver: func(h cache.ResourceEventHandler) { h.OnDelete(cm) },
			want:    oracle.Delivery{Op: oracle.OpDelete, Key: "ns/a", RV: "7", UID: "uid-a", Synced: true}},
		{name: "probe handler - tombstone, fixed handler - recorded, no panic - pass", handler: mirrorHandler(true), registered: true,
			deliver: func(h cache.ResourceEventHandler) { h.OnDelete(tomb) },
			want:    oracle.Delivery{Op: oracle.OpTombstone, Key: "ns/a", RV: "5", UID: "uid-a", Synced: true}},
		{name: "probe handler - tombstone, planted handler - recorded, panic recovered with the object's type - fail", handler: mirrorHandler(false), registered: true,
			deliver:   func(h cache.ResourceEventHandler) { h.OnDelete(tomb) },
			want:      oracle.Delivery{Op: oracle.OpTombstone, Key: "ns/a", RV: "5", UID: "uid-a", Synced: true},
			wantPanic: "interface conversion: interface {} is cache.DeletedFinalStateUnknown, not *v1.ConfigMap (object cache.DeletedFinalStateUnknown)"},
		{name: "probe handler - no handler - recorded only - pass", registered: true,
			deliver: func(h cache.ResourceEventHandler) { h.OnDelete(tomb) },
			want:    oracle.Delivery{Op: oracle.OpTombstone, Key: "ns/a", RV: "5", UID: "uid-a", Synced: true}},
		{name: "probe handler - update handler panics - panic recovered with the new object's type - fail", registered: true,
			handler: cache.ResourceEventHandlerFuncs{UpdateFunc: func(_, _ any) { panic("boom") }},
			deliver: func(h cache.ResourceEventHandler) { h.OnUpdate(cm, cm) },
			want:    oracle.Delivery{Op: oracle.OpUpdate, Key: "ns/a", RV: "7", UID: "uid-a", Synced: true}, wantPanic: "boom (object *v1.ConfigMap)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newProbe(time.Now())
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
			inf := cache.NewSharedIndexInformer(sliceListWatch(*typedConfigMap("ns", "a", "1")), &corev1.ConfigMap{}, 0, cache.Indexers{})
			if tc.stopped {
				ctx, cancel := context.WithCancel(t.Context())
				cancel()
				inf.RunWithContext(ctx)
			}
			p := newProbe(time.Now())
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

// handlerTarget returns a user target written on Probe.AddEventHandler: a
// configmap informer over the run's ListerWatcher whose handler is h.
func handlerTarget(name string, h cache.ResourceEventHandler) Target {
	return Target{Name: name, Doc: "a configmap informer whose handler the probe wraps",
		Run: func(ctx context.Context, env *Env) error {
			lw, err := env.ListerWatcher(&corev1.ConfigMap{})
			if err != nil {
				return err
			}
			inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
			if _, err := env.Probe.AddEventHandler(inf, h); err != nil {
				return err
			}
			inf.RunWithContext(ctx)
			return nil
		}}
}

// foundTombstoneInput is the input fuzzing the tombstone example found: the
// paged LIST cassette, WatchList off, the first watch answered 410 Expired
// at once, so the relist misses deletes and delivers tombstones.
var foundTombstoneInput = []byte("000\x86")

func TestAddEventHandlerRecordsPanics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		handler   cache.ResourceEventHandler
		wantPanic string // "" for none: every invariant holds
	}{
		{name: "wrapped handler - tombstone input, planted delete handler - panic recorded, clean-stop fails - fail",
			handler:   mirrorHandler(false),
			wantPanic: "interface conversion: interface {} is cache.DeletedFinalStateUnknown, not *v1.ConfigMap (object cache.DeletedFinalStateUnknown)"},
		{name: "wrapped handler - tombstone input, fixed delete handler - pass", handler: mirrorHandler(true)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewCampaign(Options{
				Cassettes:  Glob("../cassettes/real-configmaps-pods-*.yaml"),
				Target:     handlerTarget("wrapped-mirror", tc.handler),
				Invariants: []string{"converged", "clean-stop", "synced-after-initial"},
			})
			if err != nil {
				t.Fatalf("NewCampaign: got error %v, want none", err)
			}
			out := c.Check(t, foundTombstoneInput)
			if got, want := out.Failed(), tc.wantPanic != ""; got != want {
				t.Fatalf("failed: got %v, want %v; report:\n%s", got, want, out.Report)
			}
			for name, err := range out.Results {
				switch {
				case name == "clean-stop" && tc.wantPanic != "":
					if err == nil || !strings.Contains(err.Error(), tc.wantPanic) {
						t.Errorf("clean-stop: got %v, want the panic %q", err, tc.wantPanic)
					}
				case err != nil:
					t.Errorf("%s: got %v, want it to hold", name, err)
				}
			}
		})
	}
}

func TestAddEventHandlerSynced(t *testing.T) {
	t.Parallel()
	for _, path := range []string{"../cassettes/real-configmaps-pods-watchlist.yaml", "../cassettes/real-configmaps-pods-list-pages.yaml"} {
		h := mustHistory(t, path)
		for _, lvl := range []Level{Typed, Wire} {
			for _, watchList := range []bool{true, false} {
				t.Run(fmt.Sprintf("wrapped handler synced - %s, %s, WatchList %v - initial adds not synced, later deliveries synced - pass", path, lvl, watchList), func(t *testing.T) {
					t.Parallel()
					if watchList && os.Getenv("KUBE_FEATURE_WatchListClient") == "false" {
						t.Skip("KUBE_FEATURE_WatchListClient=false")
					}
					obs := Observe(t, Spec{History: h, Target: handlerTarget("wrapped", nil), WatchList: watchList, Level: lvl})
					if err := oracle.Judge(obs, "synced-after-initial")["synced-after-initial"]; err != nil {
						t.Errorf("synced-after-initial: got %v, want it to hold", err)
					}
					// The adds of the initial list come first, not synced; every
					// later add is synced. Updates and deletes may still be
					// recorded as not synced, up to the last: client-go tells the
					// registration that the informer synced from a goroutine of
					// its own, which (v0.37, in about 1 run in 15) does not run
					// before a replay that takes no virtual time has ended.
					initial := 0
					for ; initial < len(obs.Deliveries) && obs.Deliveries[initial].Op == oracle.OpAdd && !obs.Deliveries[initial].Synced; initial++ {
					}
					later := obs.Deliveries[initial:]
					for i, d := range later {
						if d.Op == oracle.OpAdd && !d.Synced {
							t.Errorf("delivery %d %+v: got an add after the initial list not synced, want synced", initial+i, d)
						}
					}
					if len(later) == 0 {
						t.Errorf("deliveries after the initial list: got none, want the recorded changes")
					}
					if obs.SyncedAt < 0 {
						t.Errorf("synced: got never, want the target synced")
					}
					pos, err := obs.Truth.Position(obs.SyncedRV)
					if err != nil {
						t.Fatalf("synced rv %q: got error %v, want its position", obs.SyncedRV, err)
					}
					if want := len(obs.Truth.StateAt(pos)); initial != want {
						t.Errorf("initial adds: got %d, want %d (the state synced to, rv %s)", initial, want, obs.SyncedRV)
					}
				})
			}
		}
	}
}
