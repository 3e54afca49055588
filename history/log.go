package history

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
)

// EventType is a watch event type.
type EventType string

// Watch event types, as they appear on the wire.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
	Bookmark EventType = "BOOKMARK"
	Error    EventType = "ERROR"
)

// InitialEventsEndAnnotation marks the bookmark that ends a WatchList
// stream's initial events.
const InitialEventsEndAnnotation = "k8s.io/initial-events-end"

// Location names where in a cassette something was recorded.
type Location struct {
	// File is the cassette file.
	File string
	// Interaction is the interaction's index in the file.
	Interaction int
	// Event is the event's index in a watch stream, or -1.
	Event int
}

// String renders "file.yaml: interaction 3: event 7".
func (l Location) String() string {
	if l.Event < 0 {
		return fmt.Sprintf("%s: interaction %d", l.File, l.Interaction)
	}
	return fmt.Sprintf("%s: interaction %d: event %d", l.File, l.Interaction, l.Event)
}

// Event is one change of one object.
type Event struct {
	// Type is Added, Modified or Deleted.
	Type EventType
	// Object is the object after the change (for Deleted: its last state,
	// carrying the deletion's resourceVersion).
	Object *Object
	// At is when the event arrived, since the history's first request;
	// negative when the cassette has no timing.
	At time.Duration
	// From is where it was recorded; File is "" for events the history
	// inferred (from a relist after a gap).
	From Location
	// Prev is the object's state before the event; nil for Added.
	Prev *Object
}

// RV returns the event's resourceVersion.
func (e Event) RV() string { return e.Object.ResourceVersion }

// TargetWrite is the Location File of the events a replay placed for the
// target's own writes. (Every other event is another actor's: recorded,
// made by a fault, by the replay's garbage collector, or by an actor:
// ActorWrite).
const TargetWrite = "write"

// ByTarget reports whether the event is one of the target's own writes.
func (e Event) ByTarget() bool { return e.From.File == TargetWrite }

// actorWritePrefix begins the Location File of an actor's writes.
const actorWritePrefix = "actor/"

// ActorWrite is the Location File of the events a replay placed for the
// writes of the actor name: "actor/" and its name. An actor is one of
// the cluster's own controllers, run beside the target (package actor).
func ActorWrite(name string) string { return actorWritePrefix + name }

// ByActor returns the name of the actor whose write the event is. ok is
// false for every other event: recorded, the target's, a fault's, the
// replay's garbage collector's.
func (e Event) ByActor() (name string, ok bool) {
	if name, ok = strings.CutPrefix(e.From.File, actorWritePrefix); !ok {
		return "", false
	}
	return name, true
}

// Mark is a resourceVersion the server reported without an object change: a
// bookmark or a list's resourceVersion.
type Mark struct {
	// RV is the resourceVersion.
	RV string
	// Type is Bookmark for bookmarks, "" for list resourceVersions.
	Type EventType
	// At is when it arrived (negative when unknown).
	At time.Duration
	// From is where it was recorded.
	From Location
}

// RecordedError is a non-2xx answer or a watch ERROR event.
type RecordedError struct {
	// From is where it was recorded.
	From Location
	// Code is the HTTP status code (of the Status, for ERROR events).
	Code int
	// Reason is the Status reason, e.g. "Expired".
	Reason string
	// Message is the Status message.
	Message string
	// Body is the raw Status JSON.
	Body []byte
}

// Log is one resource's history.
type Log struct {
	// Resource is the resource, with its Kind and scope.
	Resource Resource
	// StartRV is the resourceVersion of the initial state.
	StartRV string
	// Initial is the initial state, sorted by key.
	Initial []*Object
	// Events are the changes after StartRV, in resourceVersion order.
	Events []Event
	// Marks are bookmarks and list resourceVersions, in order.
	Marks []Mark
	// Own are the recorded client's own changes that WithoutOwn left out
	// of Events, in resourceVersion order. They are not served. They are
	// what the next event of their key changed from (its Prev). None as
	// Build makes it.
	Own []Event
	// Errors are the recorded error answers for this resource.
	Errors []RecordedError
	// Lists and Watches count the recorded LIST pages and watch streams.
	Lists, Watches int

	order  *Order
	headRV []string   // per position, the newest RV known to map there
	states *stateMemo // states StateAt computed; set by finish
}

// End returns the position after the last event: positions run from 0
// (the initial state) to End() (the final state).
func (l *Log) End() int { return len(l.Events) }

// Order returns the log's resourceVersion order.
func (l *Log) Order() *Order { return l.order }

// Errors about placing a resourceVersion in a log.
var (
	// ErrTooOld says the RV is before the log's start.
	ErrTooOld = errors.New("resource version too old")
	// ErrTooLarge says the RV is after everything the log knows.
	ErrTooLarge = errors.New("resource version too large")
	// ErrUnknownRV says the RV cannot be placed (opaque and never seen).
	ErrUnknownRV = errors.New("resource version unknown")
)

// Position returns the position of the state at rv: the number of events
// with a resourceVersion at or before it.
func (l *Log) Position(rv string) (int, error) {
	c, ok := l.order.Compare(rv, l.StartRV)
	if !ok {
		return 0, fmt.Errorf("%w: %q", ErrUnknownRV, rv)
	}
	if c < 0 {
		return 0, fmt.Errorf("%w: %s (start %s)", ErrTooOld, rv, l.StartRV)
	}
	if c2, _ := l.order.Compare(rv, l.LastRV()); c2 > 0 {
		return 0, fmt.Errorf("%w: %s (last %s)", ErrTooLarge, rv, l.LastRV())
	}
	return sort.Search(len(l.Events), func(i int) bool { return l.order.Less(rv, l.Events[i].RV()) }), nil
}

// RVAt returns the resourceVersion that names the state at pos: the newest RV
// the history knows that maps to it. (A bookmark's or list's RV can be past
// the newest object's.)
func (l *Log) RVAt(pos int) string {
	if len(l.headRV) == 0 {
		return l.StartRV
	}
	if pos < 0 {
		pos = 0
	}
	if pos >= len(l.headRV) {
		pos = len(l.headRV) - 1
	}
	return l.headRV[pos]
}

// LastRV returns the newest resourceVersion the log knows.
func (l *Log) LastRV() string { return l.RVAt(l.End()) }

// finish computes the per-position head RVs.
func (l *Log) finish() {
	l.states = newStateMemo(l)
	l.headRV = make([]string, len(l.Events)+1)
	l.headRV[0] = l.StartRV
	last := make(map[string]*Object, len(l.Initial))
	for _, o := range l.Initial {
		last[o.Key()] = o
	}
	own := 0 // Own events applied to last
	for i := range l.Events {
		e := &l.Events[i]
		own = l.applyOwn(last, own, e.RV())
		l.headRV[i+1] = e.RV()
		k := e.Object.Key()
		e.Prev = last[k]
		if e.Type == Deleted {
			delete(last, k)
		} else {
			last[k] = e.Object
		}
	}
	l.applyOwn(last, own, "")
	for _, m := range l.Marks {
		pos, err := l.positionNoLimit(m.RV)
		if err != nil {
			continue
		}
		if l.order.Less(l.headRV[pos], m.RV) {
			l.headRV[pos] = m.RV
		}
	}
}

func (l *Log) positionNoLimit(rv string) (int, error) {
	c, ok := l.order.Compare(rv, l.StartRV)
	if !ok || c < 0 {
		return 0, ErrTooOld
	}
	return sort.Search(len(l.Events), func(i int) bool { return l.order.Less(rv, l.Events[i].RV()) }), nil
}

// History is everything recorded, per resource.
type History struct {
	// Logs holds one log per resource, in order of first appearance.
	Logs []*Log
	// Discovery holds recorded discovery answers by path ("/version",
	// "/api", "/apis/apps/v1", ...).
	Discovery map[string][]byte
	// Errors holds recorded errors not tied to a resource.
	Errors []RecordedError
	// Tables holds the recorded LIST answers in Table form, in recorded
	// order.
	Tables []RecordedTable
	// Writes holds the recorded client's writes, in recorded order, as
	// recorded (a rewrite of the history leaves them as they were).
	Writes []Write
	// Files names the cassette files, in load order.
	Files []string
	// Span is the wall-clock time from the first request to the last
	// answer's end; zero when the cassette has no timing.
	Span time.Duration

	order    *Order
	orderErr error // the logs' orders disagree on a shared RV
}

// Order returns one order of every resourceVersion of the history. It is
// by value when every resource's RVs are decimal. Otherwise it agrees
// with each log's own order (Log.Order), which is what compares a
// resource's RVs.
func (h *History) Order() *Order { return h.order }

// Log returns the log of resource r (matched on group, version, resource).
func (h *History) Log(r Resource) (*Log, bool) {
	if i := h.LogIndex(r); i >= 0 {
		return h.Logs[i], true
	}
	return nil, false
}

// LogIndex returns the index in Logs of resource r's log (matched on
// group, version, resource); -1 when h has none.
func (h *History) LogIndex(r Resource) int {
	for i, l := range h.Logs {
		if l.Resource.ID() == r.ID() {
			return i
		}
	}
	return -1
}

// sortErrors puts errors in recorded order.
func sortErrors(errs []RecordedError, files []string) {
	idx := make(map[string]int, len(files))
	for k := len(files) - 1; k >= 0; k-- {
		idx[files[k]] = k
	}
	sort.SliceStable(errs, func(i, j int) bool {
		a, b := errs[i].From, errs[j].From
		if idx[a.File] != idx[b.File] {
			return idx[a.File] < idx[b.File]
		}
		if a.Interaction != b.Interaction {
			return a.Interaction < b.Interaction
		}
		return a.Event < b.Event
	})
}
