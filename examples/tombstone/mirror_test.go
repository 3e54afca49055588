package tombstone

import (
	"context"
	"encoding/json"
	"maps"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
)

// realCassette is a WatchList stream of 19 configmaps and 38 changes,
// deletes among them, recorded from a real kube-apiserver.
const realCassette = "../../cassettes/real-configmaps-pods-watchlist.yaml"

// settle is how long, in virtual time, a run lasts before the mirror is
// read: longer than client-go's longest watch timeout and a relist's
// backoff.
const settle = 15 * time.Minute

// relistAcrossDelete ends the first watch, a WatchList stream, with 410
// Expired after its 19 initial events and 37 live ones. That is just
// before the delete of e2e-beta/late-0, the last change recorded. The
// 410 says the server has moved on, so the relist is served at its
// newest state. The informer finds the configmap gone, and delivers a
// cache.DeletedFinalStateUnknown tombstone for it.
const relistAcrossDelete = "expire-watch:after=56,watch=1"

func TestMain(m *testing.M) {
	harness.QuietClientGo() // client-go inside synctest bubbles: see its doc
	os.Exit(m.Run())
}

func TestMirrorUnderRelist(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		plan       string // decisions in text form, space-separated
		fixed      bool
		wantFired  string   // a fault that must fire ("": none)
		wantPanics []string // tombstone keys the delete handler panics on
		wantStale  []string // keys the mirror keeps that the server deleted
	}{
		{name: "planted mirror - no plan - ends equal to the truth, no panic - pass"},
		{name: "planted mirror - watch expires before a delete, relist - DeleteFunc panics on the tombstone - fail",
			plan: relistAcrossDelete, wantFired: "expire-watch",
			wantPanics: []string{"e2e-beta/late-0"}, wantStale: []string{"e2e-beta/late-0"}},
		{name: "fixed mirror - no plan - ends equal to the truth, no panic - pass", fixed: true},
		{name: "fixed mirror - watch expires before a delete, relist - unwraps the tombstone, ends equal to the truth - pass",
			plan: relistAcrossDelete, fixed: true, wantFired: "expire-watch"},
	}
	files, err := cassette.LoadAll(realCassette)
	if err != nil {
		t.Fatalf("load %s: got error %v, want none", realCassette, err)
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if os.Getenv("KUBE_FEATURE_WatchListClient") == "false" {
				t.Skip("KUBE_FEATURE_WatchListClient=false")
			}
			h, err := history.Build(files...)
			if err != nil {
				t.Fatalf("build history: got error %v, want none", err)
			}
			synctest.Test(t, func(t *testing.T) {
				r := runMirror(t, h, parsePlan(t, tt.plan), tt.fixed)
				if tt.wantFired != "" && !slices.ContainsFunc(r.fired, func(f faults.Firing) bool { return f.Fault == tt.wantFired }) {
					t.Errorf("fired: got %q, want %s", faults.Story(r.fired), tt.wantFired)
				}
				if got := r.panicKeys(t); !slices.Equal(got, tt.wantPanics) {
					t.Errorf("delete handler panics: got %q, want %q", got, tt.wantPanics)
				}
				want := maps.Clone(r.truth)
				for _, k := range tt.wantStale {
					if _, ok := r.truth[k]; ok {
						t.Errorf("truth: got %s, want it deleted", k)
					}
					want[k] = r.mirror[k]
					if _, ok := r.mirror[k]; !ok {
						t.Errorf("mirror: got no %s, want the stale entry", k)
					}
				}
				if !maps.EqualFunc(r.mirror, want, maps.Equal) {
					t.Errorf("mirror:\ngot  %v\nwant %v", r.mirror, want)
				}
			})
		})
	}
}

// recovered is one panic of the delete handler and the object it had.
type recovered struct {
	value, obj any
}

// result is what a mirror ended with.
type result struct {
	mirror map[string]map[string]string
	truth  map[string]map[string]string
	fired  []faults.Firing
	panics []recovered
}

// panicKeys checks that every panic is the type assertion failing on a
// tombstone and returns the tombstones' keys, sorted.
func (r *result) panicKeys(t *testing.T) []string {
	t.Helper()
	var keys []string
	for _, p := range r.panics {
		if _, ok := p.value.(*runtime.TypeAssertionError); !ok {
			t.Errorf("panic: got %T %v, want a type assertion error", p.value, p.value)
		}
		d, ok := p.obj.(cache.DeletedFinalStateUnknown)
		if !ok {
			t.Errorf("panicking delete: got a %T, want a cache.DeletedFinalStateUnknown", p.obj)
			continue
		}
		keys = append(keys, d.Key)
	}
	slices.Sort(keys)
	return keys
}

// runMirror runs a mirror against a replayer of h acting out plan; it must
// be called inside a synctest bubble.
func runMirror(t *testing.T, h *history.History, plan faults.Plan, fixed bool) *result {
	t.Helper()
	srv := replayer.New(h, replayer.WithPlan(plan))
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: "http://replay.invalid", Transport: srv.Transport()})
	if err != nil {
		t.Fatalf("clientset: got error %v, want none", err)
	}
	r := &result{}
	var mu sync.Mutex
	opts := []Option{WithPanicHandler(func(v, obj any) {
		mu.Lock()
		defer mu.Unlock()
		r.panics = append(r.panics, recovered{value: v, obj: obj})
	})}
	if fixed {
		opts = append(opts, WithFixedDelete())
	}
	m := New(cs, opts...)
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var runErr error
	wg.Go(func() { runErr = m.Run(ctx) })
	if !cache.WaitForCacheSync(ctx.Done(), m.HasSynced) {
		t.Errorf("HasSynced: got false, want true")
	}
	synctest.Wait()
	time.Sleep(settle)
	synctest.Wait()
	cancel()
	wg.Wait()
	if runErr != nil {
		t.Errorf("Run: got error %v, want none", runErr)
	}
	r.mirror = m.Snapshot()
	r.truth = truthData(t, srv.Truth())
	r.fired = srv.Fired()
	return r
}

// configMapLog returns the configmaps log of h.
func configMapLog(t *testing.T, h *history.History) *history.Log {
	t.Helper()
	l, ok := h.Log(history.Resource{Version: "v1", Resource: "configmaps"})
	if !ok {
		t.Fatalf("history: got no configmaps log, want one")
	}
	return l
}

// truthData returns the data of every configmap in the final state of h,
// keyed as the mirror keys it.
func truthData(t *testing.T, h *history.History) map[string]map[string]string {
	t.Helper()
	l := configMapLog(t, h)
	out := map[string]map[string]string{}
	for _, o := range l.StateAt(l.End()) {
		var cm corev1.ConfigMap
		if err := json.Unmarshal(o.Raw, &cm); err != nil {
			t.Fatalf("truth %s: got error %v, want none", o.Key(), err)
		}
		d := cm.Data
		if d == nil {
			d = map[string]string{}
		}
		out[o.Key()] = d
	}
	return out
}

// parsePlan reads space-separated decisions in text form.
func parsePlan(t *testing.T, s string) faults.Plan {
	t.Helper()
	var p faults.Plan
	for _, f := range strings.Fields(s) {
		d, err := faults.ParseFault(f)
		if err != nil {
			t.Fatalf("ParseFault(%q): got error %v, want none", f, err)
		}
		p.Decisions = append(p.Decisions, d)
	}
	return p
}
