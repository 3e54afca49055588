package replayer

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// WithPlan makes the server act out a fault plan. Decision points are
// numbered per resource, in the order the server reaches that resource's
// points: each LIST request (every page counting as one), each WATCH
// request when it opens, and each frame of a watch stream just before it
// is sent. A decision at point N acts at point N of each resource: a
// client that watches several resources at once sees each resource's
// points in an order goroutine scheduling cannot move (one resource's
// requests come from one reflector), so a run's faults land where its
// input says. At each point the first
// decision that applies there (see faults.Decision.Applies) and can act
// there fires; a decision that cannot (drop-bookmark at an event,
// expire-continue at a first page, ...) lets the next one try, and a point
// where none fires behaves as without a plan. Frames that a watch-level fault suppresses
// (drop-all-bookmarks, missing-initial-events-end) reach no point; the
// event a reorder sends early takes its frame number along. Plan-level
// faults (opaque-rv) act from the start. Fired reports what fired; Truth
// the history actually served.
func WithPlan(p faults.Plan) Option {
	return func(o *options) {
		c := p
		o.plan = &c
	}
}

// planPoint is the point of a Firing of a plan-level fault.
var planPoint = faults.Point{Index: -1, Kind: faults.PlanPoint}

// faultRun is a plan being acted out: the points reached so far, what
// fired, and the history served.
type faultRun struct {
	plan faults.Plan

	mu    sync.Mutex
	per   map[history.Resource]*pointCount // by Resource.ID
	fired []faults.Firing
	truth *history.History
}

// pointCount is one resource's decision points reached so far.
type pointCount struct {
	next    int // the next point's index
	lists   int // LIST requests reached
	watches int // WATCH requests reached
	writes  int // write requests reached
}

// count returns res's point count (s.fx.mu held).
func (x *faultRun) count(res history.Resource) *pointCount {
	pc := x.per[res.ID()]
	if pc == nil {
		pc = &pointCount{}
		x.per[res.ID()] = pc
	}
	return pc
}

// passed returns the fewest points any resource reached has passed: every
// decision at a smaller point has had its chance on every resource (0
// when none was reached). A resource the target only writes (a leader
// election's lease) has reached none: its writes are numbered on their
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

// startPlan sets up the server's plan, if it has one, and applies its
// plan-level faults, in plan order, each once however many decisions name
// it.
func (s *Server) startPlan() {
	if s.opts.plan == nil {
		return
	}
	s.fx = &faultRun{plan: *s.opts.plan, truth: s.h, per: map[history.Resource]*pointCount{}}
	started := map[string]bool{}
	for _, d := range s.fx.plan.Decisions {
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
// order of the replay's clock (at one instant, by resource), each with its point and a detail ("rv 1005", "after event 2, rv
// 1005", "503"); nil without a plan.
func (s *Server) Fired() []faults.Firing {
	if s.fx == nil {
		return nil
	}
	s.fx.mu.Lock()
	out := append([]faults.Firing(nil), s.fx.fired...)
	s.fx.mu.Unlock()
	// by virtual instant, and at one instant by resource: the firings of
	// two resources at one instant come as their goroutines happen to run
	// (each resource's own keep their order)
	slices.SortStableFunc(out, func(a, b faults.Firing) int {
		if c := cmp.Compare(a.At, b.At); c != 0 {
			return c
		}
		return cmp.Compare(a.Point.Resource, b.Point.Resource)
	})
	return out
}

// Spent reports whether the server's plan can no longer fire: every
// decision's point has been passed, on every resource reached (see
// faults.Plan.Spent). True without a plan.
func (s *Server) Spent() bool {
	if s.fx == nil {
		return true
	}
	s.fx.mu.Lock()
	defer s.fx.mu.Unlock()
	return s.fx.plan.Spent(s.fx.passed())
}

// FiredCount returns how many times the server's plan fired so far.
func (s *Server) FiredCount() int {
	if s.fx == nil {
		return 0
	}
	s.fx.mu.Lock()
	defer s.fx.mu.Unlock()
	return len(s.fx.fired)
}

// Truth returns the history the server serves: its history after the
// plan's transforms (opaque-rv rewrites every resourceVersion, recreate
// adds a delete and a create). A client that converges ends with its final
// state. Without a plan it is History().
func (s *Server) Truth() *history.History { return s.served() }

// served returns the history requests are answered from.
func (s *Server) served() *history.History {
	if s.fx == nil {
		if w := s.written.Load(); w != nil {
			return w
		}
		return s.h
	}
	s.fx.mu.Lock()
	defer s.fx.mu.Unlock()
	return s.fx.truth
}

// reach numbers the decision point c.pt (assigning its Index, and its
// Request for a LIST or WATCH point) and returns what the first decision of
// the plan that applies there and can act there does (see behaviour).
// Without a plan it returns ok false.
func (s *Server) reach(c *pointCtx) (act func() error, ok bool) {
	if s.fx == nil {
		return nil, false
	}
	s.fx.mu.Lock()
	res := c.resource()
	pc := s.fx.count(res)
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
	s.fx.mu.Unlock()
	for _, d := range s.fx.plan.Decisions {
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
func (s *Server) fire(pt faults.Point, fault, detail string) {
	f := faults.Firing{Point: pt, Fault: fault, Detail: detail, Decision: -1, At: time.Since(s.start)}
	for i, d := range s.fx.plan.Decisions {
		if d.Fault == fault && (d.Applies(pt) || pt.Kind == faults.PlanPoint) {
			f.Decision, f.Persistent = i, d.Persistent || d.At < 0
			break
		}
	}
	s.fx.mu.Lock()
	defer s.fx.mu.Unlock()
	s.fx.fired = append(s.fx.fired, f)
}
