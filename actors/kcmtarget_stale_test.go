package actors_test

import (
	"slices"
	"testing"

	"github.com/lwreplay/lwreplay/actors"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// stalePlans are fault plans under which a controller's informers reach
// the resourceVersion of its own last write late, or only through a
// relist: KEP-5647's stated risk is that a reconcile skipped until then
// stops reconciling the object entirely.
var stalePlans = []struct{ name, plan string }{
	// every watch cut after 2 events, every frame 1 s late: the cache lags its writes all run
	{"watches cut and slow", "close-watch:after=2 delay:ms=1000"},
	// every watch's 2nd frame held 65 s: a write's own event comes a minute late
	{"a frame held a minute", "delay:ms=65000,frame=2"},
	// every watch 410 after 3 events, no bookmark: the cache reaches a write's RV only by a relist
	{"relists, no bookmarks", "expire-watch:after=3 drop-all-bookmarks"},
	// the apiserver restarts at each resource's 3rd watch: 30 s down, then 410 and relists
	{"apiserver restart", "apiserver-restart:down=30,watch=3"},
}

// TestKCMStaleConsistency runs each target whose controller has a KEP-5647
// gate, the gate on (its default) and off, under each of stalePlans. Each
// run must be clean. With the gate on, the recreated workload must end
// with its children: a reconcile skipped for a lagging cache is retried.
// A Job the recreate fault makes again must run again (replayer: its
// selector follows its new UID, its status starts empty).
func TestKCMStaleConsistency(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs kube-controller-manager's controllers")
	}
	workloads := []struct {
		target          string
		owner, children history.Resource
		want            int
		extra           []string // plans for this workload only
	}{
		{"replicaset", replicaSetsRes, podsRes, 2, nil},
		{"job", jobsRes, podsRes, 4, []string{"recreate:object=0,watch=2"}},
		{"daemonset", daemonSetsRes, podsRes, 3, nil},
	}
	for _, w := range workloads {
		for _, gateOff := range []bool{false, true} {
			name := w.target
			if gateOff {
				name += "-stale-consistency-off"
			}
			if !slices.Contains(actors.Targets(), name) {
				continue // a gate-off twin, on a kubernetes without the gate
			}
			c, err := fuzz.NewCampaign(kcmOptions(t, name, w.target))
			if err != nil {
				t.Fatal(err)
			}
			plans := slices.Clone(stalePlans)
			for _, p := range w.extra {
				plans = append(plans, struct{ name, plan string }{"object made again", p})
			}
			for _, p := range plans {
				t.Run("stale consistency - "+name+", "+p.name+" - clean, reconciled - pass", func(t *testing.T) {
					plan, err := faults.ParseText(p.plan)
					if err != nil {
						t.Fatal(err)
					}
					out := c.CheckPlan(t, 0, false, plan)
					if out.Failed() {
						t.Fatalf("plan %q: got a report, want none:\n%s", p.plan, out.Report)
					}
					if len(out.Observation.Fired) == 0 {
						t.Errorf("plan %q: got no fault fired, want some", p.plan)
					}
					got, err := ownedAtEnd(out.Observation.Served, w.owner, w.children)
					if err != nil {
						t.Fatal(err)
					}
					if !gateOff && got != w.want {
						t.Errorf("plan %q: got %d %s owned by the final %s, want %d", p.plan, got, w.children.Resource, w.owner.Resource, w.want)
					}
				})
			}
		}
	}
}
