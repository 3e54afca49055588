package replayer

import (
	"sort"
	"testing"
	"testing/synctest"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// stateOf renders a log's final state as "key@rv uid".
func stateOf(l *history.Log) []string {
	var out []string
	for _, o := range l.StateAt(l.End()) {
		out = append(out, o.Key()+"@"+o.ResourceVersion+" "+o.UID)
	}
	sort.Strings(out)
	return out
}

func TestFaultTruth(t *testing.T) {
	t.Parallel()
	const a, b = "00000000-0000-4000-8000-000000001001", "00000000-0000-4000-8000-000000001002"
	tests := []struct {
		name   string
		plan   string
		before []string
		want   []string
	}{
		{name: "truth - no fault fired - the history - pass", plan: "recreate:watch=2", before: []string{fWatch},
			want: []string{"ns1/a@1007 " + a, "ns1/b@1006 " + b}},
		{name: "truth - opaque-rv - rewritten RVs - pass", plan: "opaque-rv",
			want: []string{"ns1/a@r000006 " + a, "ns1/b@r000005 " + b}},
		{name: "truth - recreate of ns1/a - new UID, later RVs moved up - pass", plan: "recreate:object=0", before: []string{fWatch},
			want: []string{"ns1/a@1009 " + newUID(a, "1005"), "ns1/b@1008 " + b}},
		{name: "truth - recreate after a LIST served the head - after it, no served RV renamed - pass", plan: "recreate:object=0", before: []string{fListAll, fWatch},
			want: []string{"ns1/a@1011 " + newUID(a, "1011"), "ns1/b@1006 " + b}},
		{name: "truth - recreate under opaque-rv - new RVs in order - pass", plan: "opaque-rv recreate:object=0",
			before: []string{"/api/v1/configmaps?watch=true&resourceVersion=r000002&timeoutSeconds=5"},
			want:   []string{"ns1/a@r000006 " + newUID(a, "r000002.2"), "ns1/b@r000005 " + b}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			plan := mustPlan(t, tt.plan)
			synctest.Test(t, func(t *testing.T) {
				h := smallHistory(t)
				srv := New(h, WithPlan(plan))
				for _, target := range tt.before {
					fetch(t, srv.Transport(), target)
				}
				got := stateOf(srv.Served().Logs[0])
				if !equalStrings(got, tt.want) {
					t.Errorf("truth: got %q, want %q", got, tt.want)
				}
				if got := stateOf(srv.History().Logs[0]); !equalStrings(got, []string{"ns1/a@1007 " + a, "ns1/b@1006 " + b}) {
					t.Errorf("history: got %q, want it unchanged", got)
				}
			})
		})
	}
}

func TestFaultRecreateEvents(t *testing.T) {
	t.Parallel()
	const a = "00000000-0000-4000-8000-000000001001"
	synctest.Test(t, func(t *testing.T) {
		plan := faults.Plan{Decisions: []faults.Decision{{Fault: "recreate", At: -1}}}
		srv := New(smallHistory(t), WithPlan(plan))
		fetch(t, srv.Transport(), fWatch)
		l := srv.Served().Logs[0]
		var got []string
		for _, e := range l.Events {
			if e.Object.Key() == "ns1/a" {
				got = append(got, string(e.Type)+"@"+e.RV()+" "+e.Object.UID)
			}
		}
		u := newUID(a, "1005")
		want := []string{"DELETED@1004 " + a, "ADDED@1005 " + u, "MODIFIED@1006 " + u, "MODIFIED@1009 " + u}
		if !equalStrings(got, want) {
			t.Errorf("recreate - events of ns1/a - pass: got %q, want %q", got, want)
		}
	})
}

// TestFaultRewriteShared checks servers of one history that draw the
// same history-rewriting fault. They share the rewritten history, made
// once. Each serves it as a server of its own would.
func TestFaultRewriteShared(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name   string
		plan   string
		before []string
	}{
		{name: "rewrite - recreate drawn by two servers - one history - pass", plan: "recreate:object=0", before: []string{fWatch}},
		{name: "rewrite - opaque-rv drawn by two servers - one history - pass", plan: "opaque-rv"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			plan := mustPlan(t, tt.plan)
			synctest.Test(t, func(t *testing.T) {
				h := smallHistory(t)
				var truths []*history.History
				var states [][]string
				for range 2 {
					srv := New(h, WithPlan(plan))
					for _, target := range tt.before {
						fetch(t, srv.Transport(), target)
					}
					truths = append(truths, srv.Served())
					states = append(states, stateOf(srv.Served().Logs[0]))
				}
				if truths[0] == h {
					t.Fatalf("truth: got the history itself, want the fault's rewrite")
				}
				if truths[0] != truths[1] {
					t.Errorf("truths: got two histories, want one shared")
				}
				if !equalStrings(states[0], states[1]) {
					t.Errorf("states: got %q and %q, want them equal", states[0], states[1])
				}
			})
		})
	}
}
