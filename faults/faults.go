// Package faults defines lwreplay's fault plans. A fault is a named
// perturbation of a replay. A legal one is something kube-apiserver may do;
// a correct client must converge. A breaking one violates the watch
// contract; a client may diverge. A plan says which decision point gets
// which fault.
//
// The replayer defines the decision points: each LIST request, each WATCH
// request, each frame boundary of a watch stream, and each write of the
// target's. They are numbered in the order the server reaches them. A plan
// says what happens at some of them; every other point behaves normally.
//
// A plan can be written three ways, all giving the same Plan type:
//   - decoded from fuzz bytes (Decode, one byte per decision point);
//   - parsed from text (ParseFault: "close-watch:after=5", or a plan file);
//   - built as Go values.
//
// The byte form (Decode, Encode): byte i is the decision at point i alone.
// A byte below 0x80 is a normal point. A byte of 0x80 or more picks a
// (fault, parameter values) pair by its code (Fault.Codes); from 0xC0 on,
// the pair holds from that point on. Decode says more.
//
// The text form: "name" or "name:k=v,...". A decision with "at=N" acts at
// decision point N. Without it, it acts at every point of its fault's kind
// that its where-parameters select ("watch", "list", "page", "frame",
// "write"). A plan file is YAML with "version: 1" and a list "faults" of
// such strings.
//
// Plans compare with Plan.Equal, which reads every parameter through
// Decision.Param (a default given or left out, a nil or empty map: equal).
// Decode and ParseFault return the canonical form (Decision.Canonical):
// every parameter of the fault explicit, where-parameters only when set.
//
// Describe says a plan in words; Story says in words what the decisions
// that fired during a replay (Firing) did.
package faults

import "fmt"

// Class says whether a real kube-apiserver may produce a fault.
type Class int

const (
	// Legal faults are behaviour kube-apiserver may show; a correct client
	// converges despite them.
	Legal Class = iota
	// Breaking faults violate the watch contract; a client may diverge.
	Breaking
)

// String returns "legal" or "breaking".
func (c Class) String() string {
	switch c {
	case Legal:
		return "legal"
	case Breaking:
		return "breaking"
	}
	return fmt.Sprintf("Class(%d)", int(c))
}

// PointKind is a kind of decision point.
type PointKind int

const (
	// ListPoint is a LIST request (each page is one request).
	ListPoint PointKind = iota
	// WatchPoint is a WATCH request, when it opens.
	WatchPoint
	// FramePoint is a frame boundary of a watch stream: just before a frame
	// (an event or a bookmark) is sent.
	FramePoint
	// RequestPoint is any LIST or WATCH request.
	RequestPoint
	// PlanPoint faults apply to the whole replay from its start, wherever
	// the plan names them.
	PlanPoint
	// WritePoint is a write request of the target's (create, update,
	// patch, delete, deletecollection), once the replay has answered it.
	WritePoint
)

// String returns the kind's name: "list", "watch", "frame", "request",
// "plan", "write".
func (k PointKind) String() string {
	switch k {
	case ListPoint:
		return "list"
	case WatchPoint:
		return "watch"
	case FramePoint:
		return "frame"
	case RequestPoint:
		return "request"
	case PlanPoint:
		return "plan"
	case WritePoint:
		return "write"
	}
	return fmt.Sprintf("PointKind(%d)", int(k))
}

// Param is a fault parameter.
type Param struct {
	// Name is the parameter's name in the text form ("after", "page").
	Name string
	// Doc says what it means.
	Doc string
	// Values are the values Decode can choose, in byte order; the first is
	// the default. Text plans may give any value from Min to Max.
	Values []int
	// Min and Max bound the values a plan may give, inclusive; Max 0 means
	// no upper bound. A value outside them would never act (an HTTP error
	// code that is no error, a snapshot 0 events old), so plans refuse it.
	Min, Max int
	// Range says in a few words why the bounds are what they are ("an HTTP
	// error status kube-apiserver could send"). The error that refuses a
	// value outside them quotes it.
	Range string
}

// InRange reports whether v lies within the parameter's bounds.
func (p Param) InRange(v int) bool {
	return v >= p.Min && (p.Max == 0 || v <= p.Max)
}

// Bounds says the parameter's bounds: "400 to 599", "1 or more".
func (p Param) Bounds() string {
	if p.Max == 0 {
		return fmt.Sprintf("%d or more", p.Min)
	}
	return fmt.Sprintf("%d to %d", p.Min, p.Max)
}

// Fault is one named perturbation.
type Fault struct {
	// Name is the CLI value, subtest name and report key.
	Name string
	// Doc is a one-line description of the wire effect.
	Doc string
	// Class is Legal or Breaking.
	Class Class
	// Point is the kind of decision point the fault acts at.
	Point PointKind
	// Params are the fault's parameters.
	Params []Param
	// Codes are the fault's byte codes, one per combination of its
	// parameters' Values. A code's meaning is kept for good: see Code.
	Codes []Code
	// Do says what the decision does, in the imperative, for Describe:
	// "close the watch after 5 events". Describe passes the decision in
	// canonical form (Decision.Canonical), every parameter explicit. So Do
	// reads d.Params. (Decision.Param looks the fault up in Registry, which
	// Registry's own entries cannot refer to.) Nil means Doc.
	Do func(d Decision) string
	// Did is a past-tense sentence for Story, with at most one %s, filled
	// with the point (Point.String): "%s closed". Empty means Story says
	// the point and the name.
	Did string
	// Unrecordable says a reproducer cannot carry the fault: it sends a
	// frame that is not JSON. The recorder keeps whole JSON documents only,
	// so the frame and the stream after it would be lost.
	Unrecordable bool
	// FailsLists says the fault's persistent form can fail every LIST (an
	// error answer to each). While it lasts, a client may have no way to
	// sync, and the progress invariant does not ask it to.
	FailsLists bool
	// Persists says whether the fault has a persistent form
	// (Decision.Persistent: a decision that holds from its point on). It
	// also says whether a real apiserver, or the network in front of it,
	// may keep doing it.
	Persists Persistence
	// PersistsWhy says in a few words when a server keeps doing it ("a
	// proxy that cuts every long stream"), or why there is no persistent
	// form.
	PersistsWhy string
}

// Code is one meaning of a fault byte, kept for good. Byte 0x80+N decodes
// to its fault with these Values (0xC0+N: held from its point on). The
// codes of all faults run from 0 with no gap. A new fault or value takes
// the next free number; a code is never renumbered, changed or removed.
// testdata/choice-codes.txt holds every code ever given.
type Code struct {
	// N is the code's number.
	N int
	// Values are the parameter values, one per Fault.Params, in order.
	Values []int
}

// Persistence says what a fault's persistent form is.
type Persistence int

const (
	// Once faults have no persistent form (a plan-level fault already acts
	// on the whole replay).
	Once Persistence = iota
	// PersistsLegal faults may go on for good on a real cluster: a client
	// must not storm meanwhile, and converges when they stop.
	PersistsLegal
	// PersistsBreaking faults break the watch contract however long they
	// last.
	PersistsBreaking
)

// String returns "once", "legal" or "breaking".
func (p Persistence) String() string {
	switch p {
	case Once:
		return "once"
	case PersistsLegal:
		return "legal"
	case PersistsBreaking:
		return "breaking"
	}
	return fmt.Sprintf("Persistence(%d)", int(p))
}

// Decision is one fault placed in a plan.
type Decision struct {
	// Fault is the registry name.
	Fault string
	// At is the decision point's number (0-based, in the order the server
	// reaches points). -1 means every point of the fault's kind that its
	// parameters select.
	At int
	// Persistent makes a decision with At ≥ 0 hold from point At on. It
	// applies at every point of its fault's kind numbered At or more. Its
	// text form is "from=N"; Fault.Persists must allow it.
	Persistent bool
	// Params holds parameter values by name; missing ones take defaults.
	Params map[string]int
}

// Plan is a deterministic list of decisions.
type Plan struct {
	// Decisions in order; at most one decision fires at a point (the
	// first that applies).
	Decisions []Decision
}
