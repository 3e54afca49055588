// Package timeline renders what happened in a recording or a fuzz run as
// one self-contained HTML file. A lane per resource (or per party of a run)
// holds rows of marks on a time axis, with an RV axis on demand. Marks are
// LIST pages, watch events, bookmarks, errors, the target's requests, the
// plan's firings and the handler's deliveries.
//
// A recording's time axis is its recorded offsets. A run's is its virtual
// time. The run's truth events are placed on it when the replay served
// them, with their recorded offsets on an axis of their own on demand.
// The page needs no network: its CSS and JavaScript are inline.
//
// It builds on history and faults only; callers convert their own data
// into a Run (see fuzz.WriteTimeline for a fuzz Observation).
package timeline

import (
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

// Kind is what a mark shows.
type Kind int

// Mark kinds.
const (
	// KindEvent is a watch event (ADDED, MODIFIED, DELETED).
	KindEvent Kind = iota
	// KindPage is a LIST page (its resourceVersion).
	KindPage
	// KindBookmark is a bookmark; Type is "initial-events-end" for the
	// one that ends a WatchList's initial events.
	KindBookmark
	// KindError is an error answer or a watch ERROR event.
	KindError
	// KindRequest is a request the target sent; Type is its verb, or
	// "relist" for a LIST that starts over after the first.
	KindRequest
	// KindFiring is a fault plan's decision that fired.
	KindFiring
	// KindDelivery is a notification the target's handler received.
	KindDelivery
	// KindEnd is the end of a recorded watch stream; Type says how it
	// ended (cassette.EndEOF, EndError, EndClosed, or "unknown" when not
	// recorded).
	KindEnd
	// KindWrite is a write of the target's as the replay answered it. Type is
	// its verb (create, update, patch, delete) when it was answered a success,
	// "refused" when it was refused, "dry-run" for a dry run.
	KindWrite
)

var kindNames = [...]string{"event", "page", "bookmark", "error", "request", "firing", "delivery", "end", "write"}

// String returns the kind's name as the page uses it ("event", "page", ...).
func (k Kind) String() string {
	if k < 0 || int(k) >= len(kindNames) {
		return "unknown"
	}
	return kindNames[k]
}

// Timeline is what a page shows.
type Timeline struct {
	// Title heads the page.
	Title string
	// Lanes are the page's lanes, top to bottom.
	Lanes []Lane
	// Violation, when set, is marked at its time with its text.
	Violation *Violation
	// Ordinal says the marks' At are positions in recorded order, not
	// times (a cassette without timing).
	Ordinal bool
}

// Lane is one resource or one party of a run.
type Lane struct {
	// Name labels the lane.
	Name string
	// Rows are its rows, top to bottom.
	Rows []Row
}

// Row is one LIST chain, watch stream or kind of mark within a lane.
type Row struct {
	// Name labels the row.
	Name string
	// File and Interaction name the recorded interaction the row shows
	// (File "" for a row of no one interaction).
	File        string
	Interaction int
	// Marks are its marks, in time order.
	Marks []Mark
	// Untimed says its marks have no time on the timeline's clock (the
	// recorded events a run never served). The time axis leaves the row empty;
	// the recorded and RV axes show its marks.
	Untimed bool
	// Recorded says its marks' Recorded are their recorded offsets (a
	// run's truth): the page offers an axis of recorded offsets.
	Recorded bool
}

// Mark is one thing that happened.
type Mark struct {
	// Kind is what it is.
	Kind Kind
	// Type details the kind: the event type, the request verb, the
	// delivery op, the fault's name, the error code.
	Type string
	// At is when it happened: the recorded offset in a recording's
	// timeline, the virtual time in a run's.
	At time.Duration
	// Recorded is its recorded offset, in a row that is Recorded (a run's
	// truth, whose At is when the run served it).
	Recorded time.Duration
	// RV is the resourceVersion involved ("" when none).
	RV string
	// Key is the object's key ("" when none).
	Key string
	// Label says more in a few words.
	Label string
	// JSON is the object or answer, shown on click (nil when none).
	JSON []byte
}

// Violation is an invariant that broke.
type Violation struct {
	// At is when it was detected.
	At time.Duration
	// Broken holds each broken invariant's "name: message".
	Broken []string
	// Diff is the target's final state against the truth's, one line per
	// difference.
	Diff []string
}

// Run is what one fuzz run saw, in terms that need no fuzz package.
type Run struct {
	// Title heads the page.
	Title string
	// Truth is the history the replay served.
	Truth *history.Log
	// Served are the LIST pages and watch frames of the truth's resource the
	// replay sent, in the order it sent them. Each truth event is placed when
	// one first served it.
	Served []Serving
	// ServedLogged says Served is a log of what was served. When false (a
	// replay that logs none), no truth event has a time on the run's clock.
	ServedLogged bool
	// Requests are the target's requests, in order.
	Requests []AnsweredRequest
	// Firings are the plan's decisions that fired, in order.
	Firings []faults.Firing
	// Deliveries are the handler's notifications, in order.
	Deliveries []Delivery
	// Writes are the target's writes as the replay answered them, in
	// order.
	Writes []history.WriteAnswer
	// Violation is the failure, if any.
	Violation *Violation
}

// Serving is one answer of a run's replay that carried objects to the
// target (observe.Serving). Run.Served holds those of the truth's
// resource.
type Serving = observe.Serving

// AnsweredRequest is one request a target sent (observe.Request) with how
// the replay answered it, in a few words, for its mark's label.
type AnsweredRequest struct {
	observe.Request
	// Answer is how it was answered, in a few words ("" when unknown).
	Answer string
}

// Request is AnsweredRequest.
//
// Deprecated: use AnsweredRequest.
type Request = AnsweredRequest

// WriteRequest is one write of the target's as the replay answered it
// (history.WriteAnswer).
//
// Deprecated: use history.WriteAnswer.
type WriteRequest = history.WriteAnswer

// Delivery is one notification a target's handler received
// (observe.Delivery).
type Delivery = observe.Delivery

// Count returns how many marks of each kind t holds.
func (t *Timeline) Count() map[Kind]int {
	n := map[Kind]int{}
	for _, l := range t.Lanes {
		for _, r := range l.Rows {
			for _, m := range r.Marks {
				n[m.Kind]++
			}
		}
	}
	return n
}
