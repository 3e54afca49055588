package faults

import "fmt"

// Point describes a decision point the replayer has reached.
type Point struct {
	// Index is the decision point number, 0-based, among its resource's
	// points, in the order the server reaches them. Each resource's points
	// are numbered on their own. So are write points: a WritePoint's Index
	// is its Request minus one. So a decision at point i of a fault at the
	// target's writes acts after its (i+1)-th write, wherever that falls
	// among the other points.
	Index int
	// Kind is ListPoint, WatchPoint, FramePoint or WritePoint (never
	// RequestPoint or PlanPoint).
	Kind PointKind
	// Request is the 1-based ordinal of this request among the server's
	// requests of its kind for its resource (LISTs, every page counting as
	// one; WATCHes).
	// For a FramePoint it is the ordinal of the frame's watch; for a
	// WritePoint, of the write among the target's writes of its resource.
	Request int
	// Page is, for a ListPoint, 1 for a first page and k for the k-th page
	// of a continue chain.
	Page int
	// Frame is, for a FramePoint, the 1-based number of the frame about to
	// be sent in its stream.
	Frame int
	// Bookmark is, for a FramePoint, whether that frame is a BOOKMARK.
	Bookmark bool
	// Resource names the resource whose point it is ("configmaps",
	// "deployments.apps"; "" for a plan point): Index and Request count
	// among its points.
	Resource string
}

// String names the point as Story does: "LIST #3 page 2", "watch #2",
// "watch #2 frame 7", "watch #2 frame 8 (BOOKMARK)", "write #4".
func (pt Point) String() string {
	switch pt.Kind {
	case ListPoint:
		s := ordinal("LIST", pt.Request)
		if pt.Page > 1 {
			s += fmt.Sprintf(" page %d", pt.Page)
		}
		return s
	case WatchPoint:
		return ordinal("watch", pt.Request)
	case FramePoint:
		s := ordinal("watch", pt.Request) + fmt.Sprintf(" frame %d", pt.Frame)
		if pt.Bookmark {
			s += " (BOOKMARK)"
		}
		return s
	case WritePoint:
		return ordinal("write", pt.Request)
	}
	return fmt.Sprintf("point %d", pt.Index)
}

// ordinal is "LIST #3", or "LIST" when the ordinal is unknown (0).
func ordinal(what string, n int) string {
	if n <= 0 {
		return what
	}
	return fmt.Sprintf("%s #%d", what, n)
}

// Where-parameters select points for a decision with At -1. They exist in
// the text form only (Decode never produces them); a value of 0 is the same
// as an absent parameter: any point.
const (
	// WhereWatch selects the N-th WATCH request and the frames of its stream.
	WhereWatch = "watch"
	// WhereList selects the N-th LIST request (each page counts as one).
	WhereList = "list"
	// WherePage selects LIST requests for the N-th page of a continue chain.
	WherePage = "page"
	// WhereFrame selects the N-th frame of a watch stream.
	WhereFrame = "frame"
	// WhereWrite selects the target's N-th write of the resource.
	WhereWrite = "write"
	// ParamAt is the text form's name for Decision.At.
	ParamAt = "at"
	// ParamFrom is the text form's name for Decision.At of a Persistent
	// decision: it holds from that point on.
	ParamFrom = "from"
)

// whereParams are the where-parameters in text order.
var whereParams = []string{WhereWatch, WhereList, WherePage, WhereFrame, WhereWrite}

// isWhere reports whether name is a where-parameter.
func isWhere(name string) bool {
	for _, w := range whereParams {
		if w == name {
			return true
		}
	}
	return false
}

// whereFor lists the where-parameters that can select points of a fault
// acting at kind k, in text order.
func whereFor(k PointKind) []string {
	switch k {
	case ListPoint:
		return []string{WhereList, WherePage}
	case WatchPoint:
		return []string{WhereWatch}
	case FramePoint:
		return []string{WhereWatch, WhereFrame}
	case RequestPoint:
		return []string{WhereWatch, WhereList, WherePage}
	case WritePoint:
		return []string{WhereWrite}
	}
	return nil
}

// Lookup returns the registered fault of that name.
func Lookup(name string) (Fault, bool) {
	for _, f := range Registry {
		if f.Name == name {
			return f, true
		}
	}
	return Fault{}, false
}

// param returns the fault's parameter of that name.
func (f Fault) param(name string) (Param, bool) {
	for _, p := range f.Params {
		if p.Name == name {
			return p, true
		}
	}
	return Param{}, false
}

// Param returns the decision's value for a parameter: the value in Params,
// else the fault's default (the first of the parameter's Values), else 0.
// For a where-parameter, 0 means "any".
func (d Decision) Param(name string) int {
	if v, ok := d.Params[name]; ok {
		return v
	}
	if f, ok := Lookup(d.Fault); ok {
		if p, ok := f.param(name); ok && len(p.Values) > 0 {
			return p.Values[0]
		}
	}
	return 0
}

// fits reports whether a fault acting at kind k can act at a point of kind
// pk. It can at the same kind; RequestPoint fits a LIST or a WATCH.
// PlanPoint faults never act at a point.
func fits(k, pk PointKind) bool {
	switch k {
	case ListPoint, WatchPoint, FramePoint, WritePoint:
		return k == pk
	case RequestPoint:
		return pk == ListPoint || pk == WatchPoint
	}
	return false
}

// Applies reports whether d acts at pt. Its fault must be known, and its
// Point kind must fit pt.Kind. RequestPoint fits LIST and WATCH points;
// PlanPoint faults act at no point (see Has). Then either d.At == pt.Index
// (for a Persistent decision: pt.Index ≥ d.At), or d.At == -1 and its
// where-parameters select pt:
//   - "watch"=N: a WatchPoint or FramePoint whose Request is N;
//   - "list"=N: a ListPoint whose Request is N;
//   - "page"=N: a ListPoint whose Page is N;
//   - "frame"=N: a FramePoint whose Frame is N;
//   - "write"=N: a WritePoint whose Request is N.
//
// An absent (or 0) where-parameter selects any point.
func (d Decision) Applies(pt Point) bool {
	f, ok := Lookup(d.Fault)
	if !ok || !fits(f.Point, pt.Kind) {
		return false
	}
	if d.At >= 0 {
		if d.Persistent {
			return pt.Index >= d.At
		}
		return d.At == pt.Index
	}
	if d.At != -1 {
		return false
	}
	if n := d.Param(WhereWatch); n > 0 && ((pt.Kind != WatchPoint && pt.Kind != FramePoint) || pt.Request != n) {
		return false
	}
	if n := d.Param(WhereList); n > 0 && (pt.Kind != ListPoint || pt.Request != n) {
		return false
	}
	if n := d.Param(WherePage); n > 0 && (pt.Kind != ListPoint || pt.Page != n) {
		return false
	}
	if n := d.Param(WhereFrame); n > 0 && (pt.Kind != FramePoint || pt.Frame != n) {
		return false
	}
	if n := d.Param(WhereWrite); n > 0 && (pt.Kind != WritePoint || pt.Request != n) {
		return false
	}
	return true
}

// Match returns the first decision that applies at pt (see
// Decision.Applies).
func (p Plan) Match(pt Point) (Decision, bool) {
	for _, d := range p.Decisions {
		if d.Applies(pt) {
			return d, true
		}
	}
	return Decision{}, false
}

// Spent reports whether no decision of p can act any more once the server
// has reached points decision points. That holds when each decision acts
// on the whole replay (a PlanPoint fault, applied at the start) or is
// placed at a point below points. A decision placed by its
// where-parameters alone (At -1), or a persistent one, is never spent.
func (p Plan) Spent(points int) bool {
	for _, d := range p.Decisions {
		f, ok := Lookup(d.Fault)
		if ok && f.Point == PlanPoint {
			continue
		}
		if d.At < 0 || d.At >= points || d.Persistent {
			return false
		}
	}
	return true
}

// Has reports whether some decision names the fault.
func (p Plan) Has(name string) bool {
	for _, d := range p.Decisions {
		if d.Fault == name {
			return true
		}
	}
	return false
}

// Without returns the decisions of every fault but name, in order.
func (p Plan) Without(name string) Plan {
	var q Plan
	for _, d := range p.Decisions {
		if d.Fault != name {
			q.Decisions = append(q.Decisions, d)
		}
	}
	return q
}

// Only returns the decisions whose fault is registered with class c, in
// order.
func (p Plan) Only(c Class) Plan {
	var q Plan
	for _, d := range p.Decisions {
		if f, ok := Lookup(d.Fault); ok && f.Class == c {
			q.Decisions = append(q.Decisions, d)
		}
	}
	return q
}
