package scenario

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/observe"
)

// TestScenarioPlans holds the scenarios' plans to the fault-free run they
// are made from. There is a crash after each write, and a restart at each
// watch from the second. The fresh instance's LIST and watch are numbered
// on from the requests before it.
func TestScenarioPlans(t *testing.T) {
	// the run of a controller of widgets that owns configmaps: a LIST and
	// a watch of each, then three writes, the third after a relist
	run := []observe.Request{
		{Verb: "GET", Resource: "/api"},
		{Verb: "LIST", Resource: "widgets"},
		{Verb: "WATCH", Resource: "widgets"},
		{Verb: "LIST", Resource: "configmaps"},
		{Verb: "WATCH", Resource: "configmaps"},
		{Verb: "POST", Resource: "configmaps"},
		{Verb: "PUT", Resource: "widgets"},
		{Verb: "LIST", Resource: "widgets"},
		{Verb: "WATCH", Resource: "widgets"},
		{Verb: "PUT", Resource: "widgets"},
	}
	stale := func(restart string, list, watch int) []string {
		var out []string
		for _, back := range paramValues("stale-list", "back") {
			out = append(out, fmt.Sprintf("%s stale-list:back=%d,list=%d delay:ms=10000,watch=%d,frame=1", restart, back, list, watch))
		}
		return out
	}
	var wantStale []string
	// a stop at watch #2 follows LIST #2: the fresh instance's is LIST #3.
	// Watches #3 and #4, past the run's end, are re-watches after a timeout,
	// with no LIST before them.
	wantStale = append(wantStale, stale("graceful-restart:watch=2", 3, 3)...)
	wantStale = append(wantStale, stale("graceful-restart:watch=3", 3, 4)...)
	wantStale = append(wantStale, stale("graceful-restart:watch=4", 3, 5)...)
	wantStale = append(wantStale, stale("crash-after-write:write=1", 2, 2)...) // before the first write: LIST #1, watch #1
	wantStale = append(wantStale, stale("crash-after-write:write=2", 3, 3)...) // before the second: the relist
	tests := []struct {
		name      string
		watchList bool
		scenario  string
		want      []string
	}{
		{name: "intermediate-state - LIST+WATCH run with 2 writes of a resource - pass", scenario: "intermediate-state",
			want: []string{"crash-after-write:write=1", "crash-after-write:write=2"}},
		{name: "intermediate-state - WatchList run - pass", watchList: true, scenario: "intermediate-state",
			want: []string{"crash-after-write:write=1", "crash-after-write:write=2"}},
		{name: "stale-state - LIST+WATCH run - pass", scenario: "stale-state", want: wantStale},
		{name: "stale-state - WatchList run, a consistent read - pass", watchList: true, scenario: "stale-state"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := runOf(&observe.Observation{Requests: run}, "widgets", tc.watchList)
			var s *Scenario
			for i := range Scenarios {
				if Scenarios[i].Name == tc.scenario {
					s = &Scenarios[i]
				}
			}
			if s == nil {
				t.Fatalf("got no scenario %q, want it registered", tc.scenario)
			}
			var got []string
			for _, p := range s.plans(r) {
				got = append(got, p.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got plans\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// TestScenarioRegistry holds each scenario to a name and a doc line.
func TestScenarioRegistry(t *testing.T) {
	seen := map[string]bool{}
	for _, s := range Scenarios {
		if s.Name == "" || s.Doc == "" || s.plans == nil || seen[s.Name] {
			t.Errorf("scenario %q: got doc %q, plans set %v, seen before %v; want a unique name, a doc and plans", s.Name, s.Doc, s.plans != nil, seen[s.Name])
		}
		seen[s.Name] = true
	}
}
