package fuzz

import (
	"context"
	"fmt"
	"os"
	"slices"
	"testing"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/rest"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// shippedCassettes are the cassettes of cassettes/ with configmaps.
var shippedCassettes = []string{
	"../cassettes/real-configmaps-pods-watchlist.yaml",
	"../cassettes/real-configmaps-pods-list-pages.yaml",
	"../cassettes/real-configmaps-expired.yaml",
	"../cassettes/synthetic-configmaps-pods.yaml",
}

// mustHistory builds the history of the cassette at path.
func mustHistory(tb testing.TB, path string) *history.History {
	tb.Helper()
	return testutil.MustHistory(tb, path)
}

// factoryTarget is a user target written on the helpers, as most
// controllers are built. It is a configmap informer of a
// SharedInformerFactory over env.Clientset(), its handler registered with
// Probe.AddEventHandler.
var factoryTarget = Target{Name: "factory", Doc: "a configmap informer of a SharedInformerFactory over env.Clientset()",
	Run: func(ctx context.Context, env *Env) error {
		cs, err := env.Clientset()
		if err != nil {
			return err
		}
		factory := informers.NewSharedInformerFactory(cs, 0)
		inf := factory.Core().V1().ConfigMaps().Informer()
		if _, err := env.Probe.AddEventHandler(inf, nil); err != nil {
			return err
		}
		factory.Start(ctx.Done())
		<-ctx.Done()
		factory.Shutdown()
		return nil
	}}

// deliveryLines renders deliveries without their times, in an order two
// runs of one plan share. First come the adds of the initial list (the
// leading adds recorded as not synced), sorted: a Replace hands them out in
// a map's order. Then the rest come as delivered, without the synced flag.
// client-go's registration turns that flag true a goroutine's hop after
// its last initial add.
func deliveryLines(ds []observe.Delivery) []string {
	var out []string
	i := 0
	for ; i < len(ds) && ds[i].Op == observe.OpAdd && !ds[i].Synced; i++ {
		out = append(out, fmt.Sprintf("initial add %s rv=%s uid=%s", ds[i].Key, ds[i].RV, ds[i].UID))
	}
	slices.Sort(out)
	for _, d := range ds[i:] {
		out = append(out, fmt.Sprintf("%s %s rv=%s uid=%s bookmark=%v", d.Op, d.Key, d.RV, d.UID, d.Bookmark))
	}
	return out
}

// TestClientsetLevelsAgree runs the factory target at both levels on every
// shipped cassette, both client paths and a few plans (one of them
// breaking). It compares what the invariants say and what fired. It also
// compares the deliveries where a run's are the same every time. The
// typed clientset must stand for the wire one.
func TestClientsetLevelsAgree(t *testing.T) {
	t.Parallel()
	plans := []struct {
		text string
		// sameDeliveries says two runs deliver the same. A relist's updates and
		// deletes come in a map's order. Which state it lists depends on how far
		// the replay's head has moved.
		sameDeliveries bool
		// unsettled names invariants whose result differs from run to run
		// at both levels, not compared.
		unsettled string
	}{
		{text: "", sameDeliveries: true},
		{text: "http-error:code=500,at=0", sameDeliveries: true},
		{text: "close-watch:after=1,at=1", sameDeliveries: true},
		{text: "reset:at=4", sameDeliveries: true},
		{text: "expire-watch:after=0,at=1"},
		// A WatchList stream garbled before its initial-events-end bookmark. The
		// replayer may count that bookmark as served though the client stopped
		// reading before it. synced-after-initial then judges against a state the
		// client never synced to.
		{text: "garble-frame:at=5", unsettled: "synced-after-initial"},
	}
	for _, path := range shippedCassettes {
		h := mustHistory(t, path)
		d := level.NewCache()
		for _, p := range plans {
			for _, watchList := range []bool{true, false} {
				name := fmt.Sprintf("clientset levels agree - %s, plan %q, WatchList %v - pass", path, p.text, watchList)
				t.Run(name, func(t *testing.T) {
					if watchList && os.Getenv("KUBE_FEATURE_WatchListClient") == "false" {
						t.Skip("KUBE_FEATURE_WatchListClient=false")
					}
					plan, err := faults.ParseText(p.text)
					if err != nil {
						t.Fatalf("plan %q: got error %v, want none", p.text, err)
					}
					var held [2]map[string]error
					var delivered [2][]string
					var fired [2]string
					for i, lvl := range []Level{Typed, Wire} {
						obs := harness.Observe(t, harness.Spec{History: h, Plan: plan, Target: factoryTarget, WatchList: watchList, Level: lvl, Cache: d})
						held[i] = oracle.Judge(obs)
						delivered[i] = deliveryLines(obs.Deliveries)
						fired[i] = faults.Story(obs.Fired)
					}
					for name, wire := range held[1] {
						if typed := held[0][name]; (typed == nil) != (wire == nil) && name != p.unsettled {
							t.Errorf("%s: got %v at the typed level, want %v as at the wire level", name, typed, wire)
						}
					}
					if p.sameDeliveries && !slices.Equal(delivered[0], delivered[1]) {
						t.Errorf("deliveries: got at the typed level\n%v\nwant as at the wire level\n%v", delivered[0], delivered[1])
					}
					if fired[0] != fired[1] {
						t.Errorf("fired: got %q at the typed level, want %q as at the wire level", fired[0], fired[1])
					}
				})
			}
		}
	}
}

func TestClientsetMemo(t *testing.T) {
	t.Parallel()
	h := mustHistory(t, targetCassette)
	for _, watchList := range []bool{true, false} {
		t.Run(fmt.Sprintf("clientset memo - second typed run, WatchList %v - decodes nothing new - pass", watchList), func(t *testing.T) {
			t.Parallel()
			if watchList && os.Getenv("KUBE_FEATURE_WatchListClient") == "false" {
				t.Skip("KUBE_FEATURE_WatchListClient=false")
			}
			d := level.NewCache()
			spec := harness.Spec{History: h, Target: factoryTarget, WatchList: watchList, Level: Typed, Cache: d}
			var entries [2]int
			var delivered [2][]string
			for i := range entries {
				obs := harness.Observe(t, spec)
				if obs.ConvergedAt < 0 {
					t.Fatalf("run %d: got no convergence, want one", i+1)
				}
				entries[i], delivered[i] = d.CodecEntries(), deliveryLines(obs.Deliveries)
			}
			if entries[0] == 0 {
				t.Errorf("memo after the first run: got no decode kept, want the run's bodies and frames")
			}
			if entries[1] != entries[0] {
				t.Errorf("memo after the second run: got %d decodes kept, want %d as after the first", entries[1], entries[0])
			}
			if !slices.Equal(delivered[0], delivered[1]) {
				t.Errorf("second run deliveries: got\n%v\nwant as the first\n%v", delivered[1], delivered[0])
			}
		})
	}
}

func TestClientsetWatchList(t *testing.T) {
	t.Parallel()
	t.Cleanup(harness.QuietClientGo()) // client-go reads klog's settings, which Observe's last restore writes
	for _, lvl := range []Level{Typed, Wire} {
		for _, watchList := range []bool{true, false} {
			t.Run(fmt.Sprintf("clientset - %s, WatchList %v - opts out of WatchList unless asked - pass", lvl, watchList), func(t *testing.T) {
				t.Parallel()
				env := &Env{Config: &rest.Config{Host: level.ReplayHost}, Level: lvl, WatchList: watchList}
				cs, err := env.Clientset()
				if err != nil {
					t.Fatalf("Clientset: got error %v, want none", err)
				}
				off, ok := cs.(interface{ IsWatchListSemanticsUnSupported() bool })
				got := ok && off.IsWatchListSemanticsUnSupported()
				if got != !watchList {
					t.Errorf("WatchList unsupported: got %v, want %v", got, !watchList)
				}
			})
		}
	}
}
