package faultstest

import (
	"fmt"
	"testing"
	"testing/synctest"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
	"github.com/lwreplay/lwreplay/replayer"
)

// The real cassette's configmaps stream, as TestCassetteShape checks it:
// 19 objects, then 38 changes. Change 34 adds e2e-beta/late-1 and change 35
// updates it (nothing touches it later); change 38 is the last one, the
// delete of e2e-beta/late-0.
const (
	initialObjects = 19
	changes        = 38
)

// liveFrame returns the frame number, in the first watch's stream, of the
// k-th recorded change (1-based). On a WatchList stream it follows the 19
// initial ADDED events and the initial-events-end bookmark. A watch from
// the LIST's resourceVersion sends it as its k-th frame.
func liveFrame(watchList bool, k int) int {
	if watchList {
		return initialObjects + 1 + k
	}
	return k
}

// faultCase is one scenario of one fault on one client path.
type faultCase struct {
	// fault is the registry name of the fault under test.
	fault string
	// watchList is the client path.
	watchList bool
	// situation says where the fault strikes and what the client does.
	situation string
	// plan is the plan in text form.
	plan string
	// skip, when set, says why the fault cannot fire on this path.
	skip string
	// history, when set, builds the history replayed instead of the real
	// cassette's.
	history func(t testing.TB) *history.History
	// opts, pageSize, second and cut shape the scenario (see scenario).
	opts     []replayer.Option
	pageSize int64
	second   bool
	cut      map[int]int
	// check asserts more about the outcome; for breaking faults, the
	// divergence (or what client-go did instead).
	check func(t *testing.T, o *outcome)
}

// name is the subtest name: "<fault> - WatchList on - <situation> - pass";
// a legal fault's situation ends ", converges".
func (c faultCase) name() string {
	s := c.situation
	if f, ok := faults.Lookup(c.fault); ok && f.Class == faults.Legal && c.skip == "" {
		s += ", converges"
	}
	return c.fault + " - " + pathName(c.watchList) + " - " + s + " - pass"
}

func pathName(watchList bool) string {
	if watchList {
		return "WatchList on"
	}
	return "WatchList off"
}

func (c faultCase) scenario() scenario {
	return scenario{watchList: c.watchList, plan: c.plan, opts: c.opts, pageSize: c.pageSize, second: c.second, cut: c.cut}
}

// casesFor returns the cases of fault, in table order.
func casesFor(cases []faultCase, fault string) []faultCase {
	var out []faultCase
	for _, c := range cases {
		if c.fault == fault {
			out = append(out, c)
		}
	}
	return out
}

// firedAt checks that fault fired at the frame of the n-th watch.
func firedAt(fault string, watch, frame int) func(t *testing.T, o *outcome) {
	return func(t *testing.T, o *outcome) {
		t.Helper()
		for _, f := range o.fired {
			if f.Fault == fault && f.Point.Kind == faults.FramePoint && f.Point.Request == watch && f.Point.Frame == frame {
				return
			}
		}
		t.Errorf("%s: got firings %s, want one at watch #%d frame %d", fault, faults.Story(o.fired), watch, frame)
	}
}

// runFaultCases runs, for every fault of class in the registry, its cases;
// converge says whether each informer must end with the truth.
func runFaultCases(t *testing.T, class faults.Class, cases []faultCase, converge bool) {
	for _, f := range faults.Registry {
		if f.Class != class {
			continue
		}
		for _, c := range casesFor(cases, f.Name) {
			t.Run(c.name(), func(t *testing.T) {
				if c.skip != "" {
					t.Skip(c.skip)
				}
				if c.watchList {
					testutil.RequireWatchList(t)
				}
				build := loadReal
				if c.history != nil {
					build = c.history
				}
				h := build(t)
				synctest.Test(t, func(t *testing.T) {
					o := run(t, h, c.scenario())
					requireFired(t, o, c.fault)
					if converge {
						requireConverged(t, o)
					}
					if c.check != nil {
						c.check(t, o)
					}
					t.Logf("fired: %s", faults.Story(o.fired))
					t.Logf("requests: %q", o.requests)
				})
			})
		}
	}
}

// requireConverged fails the test unless every informer ended with the
// truth.
func requireConverged(t *testing.T, o *outcome) {
	t.Helper()
	for i, s := range o.states {
		if d := diffStates(s, o.truth); len(d) > 0 {
			t.Errorf("informer %d state (synced %v): got %d differences from the truth:\n%s\nwant none (fired: %s; requests %q)",
				i+1, o.synced[i], len(d), fmt.Sprint(d), faults.Story(o.fired), o.requests)
		}
	}
}

func TestCassetteShape(t *testing.T) {
	t.Parallel()
	l := configMapLog(t, loadReal(t))
	if got := len(l.StateAt(0)); got != initialObjects {
		t.Errorf("initial configmaps: got %d, want %d", got, initialObjects)
	}
	if got := l.End(); got != changes {
		t.Fatalf("changes: got %d, want %d", got, changes)
	}
	want := map[int]string{
		29: "MODIFIED e2e-beta/cm-01",
		34: "ADDED e2e-beta/late-1",
		35: "MODIFIED e2e-beta/late-1",
		38: "DELETED e2e-beta/late-0",
	}
	for k, w := range want {
		e := l.Events[k-1]
		if got := string(e.Type) + " " + e.Object.Key(); got != w {
			t.Errorf("change %d: got %s, want %s", k, got, w)
		}
	}
	for _, e := range l.Events[35:] {
		if e.Object.Key() == "e2e-beta/late-1" {
			t.Errorf("changes after 35: got one of e2e-beta/late-1 (rv %s), want none", e.RV())
		}
	}
}

func TestScenariosCoverRegistry(t *testing.T) {
	t.Parallel()
	tables := []struct {
		class faults.Class
		cases []faultCase
	}{
		{faults.Legal, legalCases()},
		{faults.Breaking, breakingCases()},
	}
	for _, tb := range tables {
		t.Run(tb.class.String()+" faults - every one has a scenario per client path - pass", func(t *testing.T) {
			for _, f := range faults.Registry {
				if f.Class != tb.class {
					continue
				}
				paths := map[bool]bool{}
				runs := 0
				for _, c := range casesFor(tb.cases, f.Name) {
					paths[c.watchList] = true
					if c.skip == "" {
						runs++
					}
				}
				if len(paths) != 2 {
					t.Errorf("%s: got scenarios for %d client paths, want 2 (a run or a skip naming why)", f.Name, len(paths))
				}
				if runs == 0 && f.Point != faults.WritePoint && f.Name != "graceful-restart" { // see crashedByHarness, stoppedByHarness
					t.Errorf("%s: got no scenario that runs, want one at least", f.Name)
				}
			}
			for _, c := range tb.cases {
				if f, ok := faults.Lookup(c.fault); !ok || f.Class != tb.class {
					t.Errorf("case %q: got fault %q (known %v, class %v), want a %s registry fault", c.name(), c.fault, ok, f.Class, tb.class)
				}
			}
		})
	}
}
