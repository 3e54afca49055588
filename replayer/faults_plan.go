package replayer

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// WithPlan makes the server act out a fault plan.
//
// Decision points are numbered per resource, in the order the server
// reaches that resource's points. Each LIST request is one; every page
// counts as one. Each WATCH request is one when it opens. Each frame of a
// watch stream is one just before it is sent. A decision at point N acts
// at point N of each resource. A client that watches several resources
// sees each resource's points in an order goroutine scheduling cannot
// move: one resource's requests come from one reflector. So a run's
// faults land where its input says.
//
// At each point the first decision that applies there and can act there
// fires (see faults.Decision.Applies). A decision that cannot act
// (drop-bookmark at an event, expire-continue at a first page, ...) lets
// the next one try. A point where none fires behaves as without a plan.
// Frames a watch-level fault suppresses reach no point
// (drop-all-bookmarks, missing-initial-events-end). The event a reorder
// sends early takes its frame number along. Plan-level faults (opaque-rv)
// act from the start. Fired reports what fired. Served reports the
// history actually served.
func WithPlan(p faults.Plan) Option {
	return func(o *options) {
		c := p
		o.plan = &c
	}
}

// planPoint is the point of a Firing of a plan-level fault.
var planPoint = faults.Point{Index: -1, Kind: faults.PlanPoint}

// faultRun is a plan being acted out: the points reached so far and
// what fired. What a fault does to the served history goes through the
// store (opaqueRVs) or the engine (recreate).
type faultRun struct {
	plan  faults.Plan
	start time.Time // the server's start: a firing's At is since it

	mu    sync.Mutex                       // guards per, fired and holding
	per   map[history.Resource]*pointCount // by Resource.ID
	fired []faults.Firing
	// holding is how many frames a delay holds back now: the plan still
	// acts while one pauses a stream, whatever points it has passed
	holding int
}

// pointCount is one resource's decision points reached so far.
type pointCount struct {
	next    int // the next point's index
	lists   int // LIST requests reached
	watches int // WATCH requests reached
	writes  int // write requests reached
}

// count returns res's point count (x.mu held).
func (x *faultRun) count(res history.Resource) *pointCount {
	pc := x.per[res.ID()]
	if pc == nil {
		pc = &pointCount{}
		x.per[res.ID()] = pc
	}
	return pc
}

// passed returns the fewest points any resource reached has passed, or 0
// when none was reached. Every decision at a smaller point has had its
// chance on every resource. A resource the target only writes (a leader
// election's lease) has reached none. Its writes are numbered on their
// own, and counting it would keep every plan from being spent.
func (x *faultRun) passed() int {
	least, seen := 0, false
	for _, pc := range x.per {
		if pc.next == 0 && pc.writes > 0 {
			continue
		}
		if !seen || pc.next < least {
			least, seen = pc.next, true
		}
	}
	return least
}

// newFaultRun returns the run of plan on a server that started at start.
func newFaultRun(plan faults.Plan, start time.Time) *faultRun {
	return &faultRun{plan: plan, start: start, per: map[history.Resource]*pointCount{}}
}

// startPlan applies the plan-level faults on s (whose run x is), in plan
// order, each once however many decisions name it.
func (x *faultRun) startPlan(s *Server) {
	started := map[string]bool{}
	for _, d := range x.plan.Decisions {
		b := effects[d.Fault].at(faults.PlanPoint)
		if b == nil || started[d.Fault] {
			continue
		}
		started[d.Fault] = true
		if act, ok := b(&pointCtx{s: s, pt: planPoint}, d); ok {
			_ = act() // it reports through Fired
		}
	}
}

// Fired returns the decisions of the server's plan that fired so far, in
// order of the replay's clock (at one instant, by resource). Each has its
// point and a detail ("rv 1005", "after event 2, rv 1005", "503"). Nil
// without a plan.
func (s *Server) Fired() []faults.Firing { return s.fx.firings() }

// Spent reports whether the server's plan can no longer act: every
// decision's point has been passed, on every resource reached (see
// faults.Plan.Spent), and no delay it fired still holds a frame back. A
// run that ended while one did would judge a state the target was not yet
// sent. True without a plan.
func (s *Server) Spent() bool { return s.fx.spent() }

// FiredCount returns how many times the server's plan fired so far.
func (s *Server) FiredCount() int { return s.fx.firedCount() }

// firings returns what fired, sorted as Fired says; nil for a nil run.
func (x *faultRun) firings() []faults.Firing {
	if x == nil {
		return nil
	}
	x.mu.Lock()
	out := append([]faults.Firing(nil), x.fired...)
	x.mu.Unlock()
	// by virtual instant, and at one instant by resource. The firings of
	// two resources at one instant come as their goroutines happen to run.
	// Each resource's own keep their order.
	slices.SortStableFunc(out, func(a, b faults.Firing) int {
		if c := cmp.Compare(a.At, b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.Point.Resource, b.Point.Resource)
	})
	return out
}

// spent reports whether the plan can no longer fire (true for a nil run).
func (x *faultRun) spent() bool {
	if x == nil {
		return true
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.holding == 0 && x.plan.Spent(x.passed())
}

// hold notes a frame held back by a delay until the returned func is
// called.
func (x *faultRun) hold() (release func()) {
	x.mu.Lock()
	x.holding++
	x.mu.Unlock()
	return func() {
		x.mu.Lock()
		x.holding--
		x.mu.Unlock()
	}
}

// firedCount returns how many times the plan fired (0 for a nil run).
func (x *faultRun) firedCount() int {
	if x == nil {
		return 0
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return len(x.fired)
}

// reach numbers the decision point c.pt: it assigns its Index, and its
// Request for a LIST or WATCH point. It returns what the first decision
// of the plan that applies there and can act there does (see behaviour).
// Without a plan (a nil run) it returns ok false.
func (x *faultRun) reach(c *pointCtx) (act func() error, ok bool) {
	if x == nil {
		return nil, false
	}
	x.mu.Lock()
	res := c.resource()
	pc := x.count(res)
	c.pt.Index, c.pt.Resource = pc.next, res.Name()
	if c.pt.Kind == faults.WritePoint {
		c.pt.Index = pc.writes // write points are numbered on their own
	} else {
		pc.next++
	}
	switch c.pt.Kind {
	case faults.ListPoint:
		pc.lists++
		c.pt.Request = pc.lists
	case faults.WatchPoint:
		pc.watches++
		c.pt.Request = pc.watches
	case faults.WritePoint:
		pc.writes++
		c.pt.Request = pc.writes
	}
	x.mu.Unlock()
	for _, d := range x.plan.Decisions {
		if !d.Applies(c.pt) {
			continue
		}
		if b := effects[d.Fault].at(c.pt.Kind); b != nil {
			if act, ok := b(c, d); ok {
				return act, true
			}
		}
	}
	return nil, false
}

// fire records that fault fired at pt, by the first decision of the plan
// of that fault that applies there (the one reach chose).
func (x *faultRun) fire(pt faults.Point, fault, detail string) {
	f := faults.Firing{Point: pt, Fault: fault, Detail: detail, Decision: -1, At: time.Since(x.start)}
	for i, d := range x.plan.Decisions {
		if d.Fault == fault && (d.Applies(pt) || pt.Kind == faults.PlanPoint) {
			f.Decision, f.Persistent = i, d.Persistent || d.At < 0
			break
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	x.fired = append(x.fired, f)
}
