package faults

import (
	"fmt"
	"strings"
	"time"
)

// Firing is a decision that fired, as the replayer reports it.
type Firing struct {
	// Point is where the decision matched.
	Point Point
	// Fault is the fault's registry name.
	Fault string
	// Detail is what the point does not tell, in a few words. It may be the
	// RV involved, how many events went before, or the code sent ("rv 140",
	// "after event 5, rv 140", "503"). Story prints it in parentheses.
	Detail string
	// Persistent says the decision that fired may fire again at later
	// points (Decision.Persistent, or placed by where-parameters alone):
	// Story tells all its firings in one clause.
	Persistent bool
	// Decision is the index in the plan of the decision that fired (-1
	// when unknown); Story groups a persistent decision's firings by it.
	Decision int
	// At is when it fired, on the replay's clock (time since the server
	// started); 0 when not recorded.
	At time.Duration
}

// Describe returns the plan in words, one clause per decision in order.
// A clause says where, then what: "at point 3: close the watch after 5
// events; every LIST page 2: answer 410 Expired". An empty plan is "no
// faults".
func Describe(p Plan) string {
	if len(p.Decisions) == 0 {
		return "no faults"
	}
	s := make([]string, len(p.Decisions))
	for i, d := range p.Decisions {
		s[i] = describe(d)
	}
	return strings.Join(s, "; ")
}

// describe renders one decision.
func describe(d Decision) string {
	f, ok := Lookup(d.Fault)
	if !ok {
		return fmt.Sprintf("unknown fault %q (never fires)", d.Fault)
	}
	what := f.Doc
	if f.Do != nil {
		what = f.Do(d.Canonical())
	}
	return where(d, f) + ": " + what
}

// where renders the points a decision selects: "at point 3", "every LIST
// page 2", "frame 5 of watch #2", "throughout".
func where(d Decision, f Fault) string {
	if f.Point == WritePoint && d.At >= 0 { // write points are numbered on their own
		return fmt.Sprintf("write #%d", d.At+1)
	}
	if d.At >= 0 && d.Persistent {
		return fmt.Sprintf("from point %d on", d.At)
	}
	if d.At >= 0 {
		return fmt.Sprintf("at point %d", d.At)
	}
	if f.Point == PlanPoint {
		return "throughout"
	}
	if f.Point == WritePoint {
		if n := d.Param(WhereWrite); n > 0 {
			return fmt.Sprintf("write #%d", n)
		}
		return "every write"
	}
	watch, list, page, frame := d.Param(WhereWatch), d.Param(WhereList), d.Param(WherePage), d.Param(WhereFrame)
	listing := f.Point == ListPoint || (f.Point == RequestPoint && (list > 0 || page > 0))
	switch {
	case listing && list > 0 && page > 0:
		return fmt.Sprintf("LIST #%d if it is page %d", list, page)
	case listing && list > 0:
		return fmt.Sprintf("LIST #%d", list)
	case listing && page > 0:
		return fmt.Sprintf("every LIST page %d", page)
	case listing:
		return "every LIST"
	case f.Point == FramePoint && watch > 0 && frame > 0:
		return fmt.Sprintf("frame %d of watch #%d", frame, watch)
	case f.Point == FramePoint && watch > 0:
		return fmt.Sprintf("every frame of watch #%d", watch)
	case f.Point == FramePoint && frame > 0:
		return fmt.Sprintf("frame %d of every watch", frame)
	case f.Point == FramePoint:
		return "every frame"
	case watch > 0:
		return fmt.Sprintf("watch #%d", watch)
	case f.Point == WatchPoint:
		return "every watch"
	case f.Point == RequestPoint:
		return "every LIST and watch"
	}
	return "nowhere"
}

// Story tells what the fired decisions did, in order, one clause each.
// For example: "watch #2 closed (after event 5, rv 140); LIST #3 page 2
// answered 410 Expired; watch #1 frame 7 (BOOKMARK) dropped (rv 83)".
// The firings of one persistent decision make one clause, placed where the
// first fired. For example: "from watch #1 on, every time: watch #1 closed
// (after event 3, rv 84), 1,200 times, the last watch #1200 closed (after
// event 3, rv 84)". Nothing fired is "no fault fired".
func Story(fired []Firing) string {
	if len(fired) == 0 {
		return "no fault fired"
	}
	type group struct {
		first, last Firing
		n           int
	}
	var order []*group
	groups := map[int]*group{}
	for _, f := range fired {
		if f.Persistent && f.Decision >= 0 {
			if g, ok := groups[f.Decision]; ok {
				g.last, g.n = f, g.n+1
				continue
			}
			g := &group{first: f, last: f, n: 1}
			groups[f.Decision] = g
			order = append(order, g)
			continue
		}
		order = append(order, &group{first: f, last: f, n: 1})
	}
	s := make([]string, len(order))
	for i, g := range order {
		switch {
		case g.n == 1:
			s[i] = clause(g.first)
		default:
			s[i] = fmt.Sprintf("from %s on: %s, %s times, the last: %s", g.first.Point, clause(g.first), thousands(g.n), clause(g.last))
		}
	}
	return strings.Join(s, "; ")
}

// clause says what one firing did: "watch #2 closed (after event 5, rv
// 140)".
func clause(f Firing) string {
	var s string
	switch fault, ok := Lookup(f.Fault); {
	case ok && strings.Contains(fault.Did, "%s"):
		s = fmt.Sprintf(fault.Did, f.Point)
	case ok && fault.Did != "":
		s = fault.Did
	default:
		s = fmt.Sprintf("%s: %s", f.Point, f.Fault)
	}
	if f.Detail != "" {
		s += " (" + f.Detail + ")"
	}
	return s
}

// thousands renders n with thousands separators: "1,200".
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
