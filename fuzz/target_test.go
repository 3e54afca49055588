package fuzz

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/fuzz/targets"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
)

// targetCassette is the recorded cassette the target tests replay: a
// WatchList stream of 19 configmaps and 38 changes from a real
// kube-apiserver.
const targetCassette = "../cassettes/real-configmaps-pods-watchlist.yaml"

// loadTargetHistory builds a history of targetCassette.
// mustPlan parses a plan's text form, failing t when it does not parse.
func mustPlan(t *testing.T, text string) faults.Plan {
	t.Helper()
	return testutil.MustPlan(t, text)
}

func loadTargetHistory(t *testing.T) *history.History {
	t.Helper()
	return mustHistory(t, targetCassette)
}

func TestTargetsConverge(t *testing.T) {
	t.Parallel()
	for _, target := range targets.Builtin {
		for _, lvl := range []Level{Typed, Wire} {
			for _, watchList := range []bool{true, false} {
				path := "WatchList off"
				if watchList {
					path = "WatchList on"
				}
				t.Run(target.Name+" - "+lvl.String()+", "+path+" - no faults, store equals truth - pass", func(t *testing.T) {
					if watchList && os.Getenv("KUBE_FEATURE_WatchListClient") == "false" {
						t.Skip("KUBE_FEATURE_WatchListClient=false")
					}
					obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Target: target, WatchList: watchList, Level: lvl})
					if obs == nil || obs.TruthLog == nil {
						t.Fatalf("observation: got %+v, want one with a truth", obs)
					}
					want := obs.TruthLog.StateAt(obs.TruthLog.End())
					if len(obs.Store) != len(want) {
						t.Errorf("store size: got %d, want %d", len(obs.Store), len(want))
					}
					for _, o := range want {
						got, ok := obs.Store[o.Key()]
						switch {
						case !ok:
							t.Errorf("store %s: got missing, want rv %s", o.Key(), o.ResourceVersion)
						case got.ResourceVersion != o.ResourceVersion:
							t.Errorf("store %s: got rv %s, want rv %s", o.Key(), got.ResourceVersion, o.ResourceVersion)
						}
					}
					if obs.SyncedAt < 0 {
						t.Errorf("SyncedAt: got %v, want ≥ 0", obs.SyncedAt)
					}
					if obs.ConvergedAt < 0 {
						t.Errorf("ConvergedAt: got %v, want ≥ 0", obs.ConvergedAt)
					}
					if len(obs.Deliveries) == 0 {
						t.Errorf("deliveries: got none, want some")
					}
					if obs.InitialDelivered == 0 {
						t.Errorf("InitialDelivered: got 0, want > 0")
					}
					if obs.LastFaultAt >= 0 {
						t.Errorf("LastFaultAt: got %v, want < 0 (no plan)", obs.LastFaultAt)
					}
					for _, d := range obs.Deliveries {
						if d.Bookmark {
							t.Errorf("delivery %+v: got a bookmark object, want none", d)
						}
					}
					t.Logf("synced at %v, converged at %v, %d deliveries, %d initial, %d stored", obs.SyncedAt, obs.ConvergedAt, len(obs.Deliveries), obs.InitialDelivered, len(obs.Store))
				})
			}
		}
	}
}

// TestTargetsClientPath shows that the WatchList switch reaches the
// client. A plan that never ends a WatchList stream's initial events keeps
// a WatchList client from syncing and leaves a LIST-then-WATCH one alone.
func TestTargetsClientPath(t *testing.T) {
	t.Parallel()
	d, err := faults.ParseFault("missing-initial-events-end")
	if err != nil {
		t.Fatalf("ParseFault: got error %v, want none", err)
	}
	plan := faults.Plan{Decisions: []faults.Decision{d}}
	for _, target := range targets.Builtin {
		for _, lvl := range []Level{Typed, Wire} {
			for _, c := range []struct {
				watchList  bool
				situation  string
				wantSynced bool
			}{
				{watchList: true, situation: "WatchList on - initial events never end, never syncs", wantSynced: false},
				{watchList: false, situation: "WatchList off - no WatchList request, syncs", wantSynced: true},
			} {
				situation, wantSynced, wantFired := c.situation, c.wantSynced, c.watchList
				if target.NoWatchList && c.watchList {
					// it never asks for WatchList: the LIST path's run
					situation, wantSynced, wantFired = "WatchList on - a target that never asks for it, syncs", true, false
				}
				t.Run(target.Name+" - "+lvl.String()+", "+situation+" - pass", func(t *testing.T) {
					if c.watchList && os.Getenv("KUBE_FEATURE_WatchListClient") == "false" {
						t.Skip("KUBE_FEATURE_WatchListClient=false")
					}
					obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Plan: plan, Target: target, WatchList: c.watchList, Level: lvl})
					if got := obs.SyncedAt >= 0; got != wantSynced {
						t.Errorf("synced: got %v (at %v), want %v", got, obs.SyncedAt, wantSynced)
					}
					if got := obs.LastFaultAt >= 0; got != wantFired {
						t.Errorf("fault fired: got %v (at %v), want %v", got, obs.LastFaultAt, wantFired)
					}
				})
			}
		}
	}
}

func TestRunEnds(t *testing.T) {
	t.Parallel()
	target, _ := targets.Lookup("informer")
	tests := []struct {
		name      string
		plan      string
		wantEarly bool
	}{
		{name: "run end - no plan - ends once caught up - pass", plan: "", wantEarly: true},
		{name: "run end - decision at a point never reached - runs to the watchdog - pass", plan: "close-watch:after=1,at=100000", wantEarly: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := faults.ParseText(tc.plan)
			if err != nil {
				t.Fatalf("plan: got error %v, want none", err)
			}
			obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Plan: plan, Target: target, WatchList: true})
			if obs.EndedEarly != tc.wantEarly {
				t.Errorf("ended early: got %v (at %v), want %v", obs.EndedEarly, obs.EndedAt, tc.wantEarly)
			}
			if tc.wantEarly && obs.EndedAt >= harness.DefaultWatchdog {
				t.Errorf("ended at: got %v, want before the watchdog (%v)", obs.EndedAt, harness.DefaultWatchdog)
			}
			if !tc.wantEarly && obs.EndedAt < harness.DefaultWatchdog {
				t.Errorf("ended at: got %v, want at least the watchdog (%v)", obs.EndedAt, harness.DefaultWatchdog)
			}
			if obs.ConvergedAt < 0 {
				t.Errorf("converged: got never, want converged")
			}
		})
	}
}

// clientsetTarget is a user target as most controllers are written: a
// clientset made from the run's rest.Config and a shared informer factory.
var clientsetTarget = Target{Name: "clientset", Doc: "a typed configmap informer from a clientset",
	Run: func(ctx context.Context, env *Env) error {
		cs, err := kubernetes.NewForConfig(env.Config)
		if err != nil {
			return err
		}
		factory := informers.NewSharedInformerFactory(cs, 0)
		inf := factory.Core().V1().ConfigMaps().Informer()
		// The handler's registration says when the handler has been told of the
		// initial state. The informer's HasSynced says only that its store has it;
		// reporting that one breaks synced-after-initial.
		var reg cache.ResourceEventHandlerRegistration
		var mu sync.Mutex
		synced := func() bool {
			mu.Lock()
			defer mu.Unlock()
			return reg != nil && reg.HasSynced()
		}
		r, err := inf.AddEventHandler(cache.ResourceEventHandlerDetailedFuncs{
			AddFunc:    func(obj any, initial bool) { env.Probe.Add(obj, !initial) },
			UpdateFunc: func(_, obj any) { env.Probe.Update(obj, synced()) },
			DeleteFunc: func(obj any) { env.Probe.Delete(obj, synced()) },
		})
		if err != nil {
			return err
		}
		mu.Lock()
		reg = r
		mu.Unlock()
		env.Probe.SetSynced(synced)
		env.Probe.SetStore(inf.GetStore().List)
		factory.Start(ctx.Done())
		<-ctx.Done()
		factory.Shutdown()
		return nil
	}}

func TestUserTargetWithClientset(t *testing.T) {
	t.Parallel()
	for _, watchList := range []bool{true, false} {
		t.Run(fmt.Sprintf("user target - clientset from env.Config, WatchList %v - every invariant holds - pass", watchList), func(t *testing.T) {
			obs := harness.Observe(t, harness.Spec{History: loadTargetHistory(t), Target: clientsetTarget, WatchList: watchList})
			for name, err := range oracle.Judge(obs) {
				if err != nil {
					t.Errorf("%s: got %v, want it to hold", name, err)
				}
			}
			if len(obs.Store) == 0 {
				t.Errorf("store: got empty, want the final configmaps")
			}
		})
	}
}
