// Package scenario makes Sieve's classes of test plan from a target's
// fault-free run: a crash after each write, a restart served stale, an
// object recreated while the target is away.
package scenario

import (
	"slices"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/observe"
)

// Scenario is one of Sieve's classes of test plan, as data. Its plans are
// those a target's fault-free run of an input makes worth trying. Each is
// placed among that run's own writes, LISTs and watches: a restart after
// the target's k-th write, its LIST after it stale. Sieve derives its test
// plans from a reference run the same way. Here they are made from the run
// of every fault-free input (once per cassette, client path and gates)
// when fuzz.Options.Scenarios is set.
type Scenario struct {
	// Name is the scenario's registry name: the report key and the name
	// fuzz.Campaign.Check's report gives its plans.
	Name string
	// Doc says what the plans do, and quotes what kube-apiserver and
	// controller-runtime guarantee that makes them legal.
	Doc string
	// plans are the scenario's plans for a fault-free run.
	plans func(r run) []faults.Plan
}

// MaxWrites bounds the writes a scenario places a crash after:
// the first MaxWrites of a resource.
const MaxWrites = 8

// MaxWatches bounds the watches a scenario places a restart at:
// the run resource's watches 2 … MaxWatches.
const MaxWatches = 4

// Scenarios are the scenario registry, in the order their plans run.
var Scenarios = []Scenario{
	{Name: "intermediate-state",
		Doc: "the target crashes right after its k-th write of a resource (k = 1 … the writes of its fault-free run, at most MaxScenarioWrites) and a fresh instance starts cold: " +
			"a process may die at any instant, and kube-apiserver keeps what it stored, so a controller must tolerate a crash between any two of its writes (Sieve's intermediate state)",
		plans: func(r run) []faults.Plan {
			var out []faults.Plan
			for k := 1; k <= len(r.beforeWrite); k++ {
				out = append(out, planOf(where(faults.CrashAfterWrite, faults.WhereWrite, k)))
			}
			return out
		}},
	{Name: "stale-state",
		Doc: "the target is restarted — stopped as by a SIGTERM at its w-th watch of the run's resource (w = 2 … MaxScenarioWatches: once it has settled and a watch of its timed out), or crashed right after its k-th write — " +
			`and the fresh instance's first LIST of the resource is served from a snapshot B events old (B: each of stale-list's values) and its watch from there 10 s late, as by an HA apiserver whose watch cache lags: ` +
			`for resourceVersion "0", "any": data at any resource version may be served (Kubernetes API concepts, "Semantics for get and list"), and a watch from that version is served by the same cache as it catches up; ` +
			"controller-runtime's manager starts its caches with exactly such a LIST (Sieve's stale state). Only on the LIST+WATCH path: a WatchList is a consistent read, and cannot be stale",
		plans: func(r run) []faults.Plan {
			if r.watchList {
				return nil
			}
			var out []faults.Plan
			for _, rs := range r.restarts() {
				for _, back := range paramValues(faults.StaleList, "back") {
					stale := where(faults.StaleList, faults.WhereList, rs.next.lists+1)
					stale.Params["back"] = back
					late := where(faults.Delay, faults.WhereWatch, rs.next.watches+1)
					late.Params[faults.WhereFrame], late.Params["ms"] = 1, 10000
					out = append(out, planOf(rs.restart, stale, late))
				}
			}
			return out
		}},
	{Name: "unobserved-state",
		Doc: "while the target is away from its w-th watch of the run's resource (w = 2 … MaxScenarioWatches), one of its objects (each of recreate's object values, in key order) is deleted and created again under its name with a new UID, and that watch is answered 410 Expired: the delete is never seen, the relist shows only the outcome — " +
			`"When the requested watch operations fail because the historical version of that resource is not available, clients must handle the case by recognizing the status code 410 Gone, clearing their local cache, performing a new get or list operation, and starting the watch from the resourceVersion that was returned" (Kubernetes API concepts, "Efficient detection of changes"); ` +
			"a controller must act on the state it lists, not on the changes it was told of (Sieve's unobserved state)",
		plans: func(r run) []faults.Plan {
			var out []faults.Plan
			for w := 2; w <= MaxWatches; w++ {
				for _, k := range paramValues(faults.Recreate, "object") {
					d := where(faults.Recreate, faults.WhereWatch, w)
					d.Params["object"] = k
					out = append(out, planOf(d))
				}
			}
			return out
		}},
}

// run is what the scenarios' plans are placed by: a fault-free
// run's requests of the campaign's resource, counted as the replay
// numbers its decision points.
type run struct {
	watchList bool
	// beforeWrite[k-1] counts the LISTs (every page one) and watches of the
	// resource the target had sent before its k-th write of any one resource
	// (k ≤ MaxWrites). A fresh instance started after that write takes up the
	// numbering there.
	beforeWrite []requestCount
	// lists[w-1] counts the LISTs of the resource sent before its w-th watch
	// (w ≤ MaxWatches). The fault-free run may not reach a watch: it ended once
	// the target was quiet. A reflector opens that watch again when its last
	// one times out, with no LIST between. So it counts the run's LISTs.
	lists []int
}

// requestCount counts LIST and watch requests.
type requestCount struct{ lists, watches int }

// restart is a restart of the target and the requests of the run
// resource sent before the fresh instance's first.
type restart struct {
	restart faults.Decision
	next    requestCount
}

// restarts are r's restart points:
//   - a stop at each watch from the second on, MaxWatches at most (a stop
//     at a watch lets it be answered: the fresh instance's first watch is
//     the next);
//   - then a crash after each write.
//
// The stops come first. A watch's ordinal among one resource's requests is
// the same in every run of an input. Where a controller's k-th write falls
// among them depends on the order its goroutines ran in.
func (r run) restarts() []restart {
	var out []restart
	for w := 2; w <= MaxWatches; w++ {
		out = append(out, restart{where(faults.GracefulRestart, faults.WhereWatch, w), requestCount{lists: r.lists[w-1], watches: w}})
	}
	for k, n := range r.beforeWrite {
		out = append(out, restart{where(faults.CrashAfterWrite, faults.WhereWrite, k+1), n})
	}
	return out
}

// runOf counts obs's requests of resource (its Name).
func runOf(obs *observe.Observation, resource string, watchList bool) run {
	r := run{watchList: watchList}
	var n requestCount
	writes := map[string]int{}
	for _, req := range obs.Requests {
		switch req.Verb {
		case "LIST":
			if req.Resource == resource {
				n.lists++
			}
		case "WATCH", "WATCHLIST":
			if req.Resource == resource {
				n.watches++
				if n.watches <= MaxWatches {
					r.lists = append(r.lists, n.lists)
				}
			}
		case "POST", "PUT", "PATCH", "DELETE":
			writes[req.Resource]++
			if k := writes[req.Resource]; k > len(r.beforeWrite) && k <= MaxWrites {
				r.beforeWrite = append(r.beforeWrite, n)
			}
		}
	}
	for len(r.lists) < MaxWatches {
		r.lists = append(r.lists, n.lists)
	}
	return r
}

// where is a decision of fault at every point the where-parameter
// selects (At -1).
func where(fault, param string, n int) faults.Decision {
	return faults.Decision{Fault: fault, At: -1, Params: map[string]int{param: n}}
}

// planOf is a plan of ds.
func planOf(ds ...faults.Decision) faults.Plan { return faults.Plan{Decisions: ds} }

// paramValues are the registry's values of a fault's parameter.
func paramValues(fault, param string) []int {
	f, _ := faults.Lookup(fault)
	for _, p := range f.Params {
		if p.Name == param {
			return p.Values
		}
	}
	return nil
}

// Plan is one plan of a scenario.
type Plan struct {
	// Scenario names the scenario.
	Scenario string
	// Plan is the fault plan.
	Plan faults.Plan
}

// PlansOf returns every scenario's plans for obs, a fault-free run of
// resource (its Name) on the given client path, in registry order.
func PlansOf(obs *observe.Observation, resource string, watchList bool) []Plan {
	r := runOf(obs, resource, watchList)
	out := []Plan{}
	for _, s := range Scenarios {
		for _, plan := range s.plans(r) {
			out = append(out, Plan{Scenario: s.Name, Plan: plan})
		}
	}
	return out
}

// Exact returns plan with its decisions placed at the points of resource
// where they fired (at=, the byte form). ok is false when that plan has
// no byte form.
func Exact(plan faults.Plan, fired []faults.Firing, resource string) (exact faults.Plan, ok bool) {
	var ds []faults.Decision
	seen := map[int]bool{}
	for _, f := range fired {
		if f.Decision < 0 || f.Point.Resource != resource || seen[f.Point.Index] {
			continue
		}
		seen[f.Point.Index] = true
		d := plan.Decisions[f.Decision]
		params := map[string]int{}
		for name, v := range d.Params {
			if !slices.Contains([]string{faults.WhereWatch, faults.WhereList, faults.WherePage, faults.WhereFrame, faults.WhereWrite}, name) {
				params[name] = v
			}
		}
		ds = append(ds, faults.Decision{Fault: d.Fault, At: f.Point.Index, Params: params})
	}
	slices.SortStableFunc(ds, func(a, b faults.Decision) int { return a.At - b.At })
	exact = planOf(ds...)
	if _, err := faults.Encode(exact); err != nil {
		return faults.Plan{}, false
	}
	return exact, true
}

// Budget is how long one input's check in a fuzzing worker may take with
// its scenario plans. The engine of go test ends a worker whose input runs
// 10 s (internal/fuzz, RunFuzzWorker). A controller's key has dozens of
// plans. The budget counts from the input's start: its own run and
// reference runs spend the same 10 s. A plan starts only if the longest
// plan of its key so far would end within it (StartsPlan). The next input
// of the key takes up where the last stopped, so the worker runs them all
// in turn. A failure found so repeats in every plain run of the input,
// which runs the same plans in the same order. A plain run has no budget:
// go test -run, the coordinator's report.
const Budget = 5 * time.Second

// StartsPlan says whether a fuzzing worker's input that has run for
// elapsed (real time) starts another scenario plan. longest is the longest
// plan check of its key so far. The plan starts only if that long a check
// would end within Budget. On a loaded machine an input then runs fewer
// plans, and the next inputs of its key take up the rest. It does not run
// past go test's 10 s, which the engine reports as a failing input.
func StartsPlan(elapsed, longest time.Duration) bool {
	return elapsed+longest < Budget
}
