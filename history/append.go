package history

import (
	"fmt"
	"slices"
	"sort"
	"sync"
)

// Appending to a log. A write a replay answers lands at the end of its
// resource's log (what a watch serves next): AppendEvents makes the
// history with it at the cost of the events appended. It shares the rest
// with the history it came from: the other logs (the same *Log), the log's
// Initial, Marks and earlier events, and what its state memo has computed.
// The versions of a log made so share one lineage. It holds backing arrays
// of its Events, head RVs and order values, which the newest version
// extends in place. Each version sees a clipped prefix, so an append to
// one of its slices copies. The lineage also holds an index of each key's
// events, which makes Log.ObjectAt a binary search. A version that is not
// the newest (a second append to one history) starts a lineage of its own,
// copying its slices once.

// lineage is what the versions of one log made by AppendEvents share.
// For every version v of it, v.Events, v.headRV and v.order's values are
// prefixes (by value) of events, heads and vals. The newest version's
// are the whole of them.
type lineage struct {
	mu     sync.Mutex
	events []Event
	heads  []string // one more than events, as a log's headRV
	vals   []uint64 // a numeric order's values, ascending
	// byKey holds, per object key, the positions in events of its events,
	// ascending; nil until a lookup needs it.
	byKey map[string][]int
}

// adopt returns a lineage whose newest version is l, sharing l's slices
// (clipped: the first append copies them).
func adopt(l *Log) *lineage {
	lin := &lineage{events: slices.Clip(l.Events), heads: slices.Clip(l.headRV)}
	if l.order != nil {
		lin.vals = slices.Clip(l.order.vals)
	}
	return lin
}

// index builds byKey once; the caller holds mu.
func (lin *lineage) index() {
	if lin.byKey != nil {
		return
	}
	lin.byKey = make(map[string][]int)
	for i := range lin.events {
		k := lin.events[i].Object.Key()
		lin.byKey[k] = append(lin.byKey[k], i)
	}
}

// objectAt returns the object under key in the state at pos of a
// version. The version's initial state is initial (sorted by key), and
// its events are a prefix of at least pos of lin's. The caller holds mu.
func (lin *lineage) objectAt(initial []*Object, key string, pos int) (*Object, bool) {
	lin.index()
	ps := lin.byKey[key]
	if j := sort.SearchInts(ps, pos) - 1; j >= 0 {
		return eventObject(&lin.events[ps[j]])
	}
	return initialObject(initial, key)
}

// eventObject returns the object e leaves under its key: none after a
// deletion.
func eventObject(e *Event) (*Object, bool) {
	if e.Type == Deleted {
		return nil, false
	}
	return e.Object, true
}

// initialObject returns the object under key in initial, sorted by key
// (the last of the key counting, as in StateAt).
func initialObject(initial []*Object, key string) (*Object, bool) {
	i := sort.Search(len(initial), func(i int) bool { return initial[i].Key() > key })
	if i > 0 && initial[i-1].Key() == key {
		return initial[i-1], true
	}
	return nil, false
}

// lineage returns the lineage of the log m serves (adopting l, the log,
// when it has none yet).
func (m *stateMemo) lineage(l *Log) *lineage {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.lin == nil {
		m.lin = adopt(l)
	}
	return m.lin
}

// derive returns the memo of l, a log whose events extend the ones m
// serves, in lineage lin. It starts with the states m computed; each one
// is also a state of l.
func (m *stateMemo) derive(l *Log, lin *lineage) *stateMemo {
	m.mu.Lock()
	defer m.mu.Unlock()
	return &stateMemo{
		initial: l.Initial, events: l.Events, every: m.every, lin: lin,
		checkpoints: slices.Clone(m.checkpoints), saved: slices.Clone(m.saved), tick: m.tick,
	}
}

// ObjectAt returns the object stored under key in the state at pos, and
// whether there is one. key is "namespace/name", or "name" for a
// cluster-scoped object. It is what StateAt(pos) holds under key,
// without building the state. It costs O(log n) once the log's key
// index is built; the first call of the log's lineage builds it in
// O(n). A copy of a log given other slices (and a Log not made by this
// package) looks through the events before pos instead. It is safe for
// concurrent use.
func (l *Log) ObjectAt(key string, pos int) (*Object, bool) {
	pos = max(0, min(pos, len(l.Events)))
	m := l.states
	if m == nil || !m.serves(l) {
		for i := pos - 1; i >= 0; i-- {
			if e := &l.Events[i]; e.Object.Key() == key {
				return eventObject(e)
			}
		}
		return initialObject(l.Initial, key)
	}
	lin := m.lineage(l)
	lin.mu.Lock()
	defer lin.mu.Unlock()
	return lin.objectAt(l.Initial, key, pos)
}

// AppendEvents returns a copy of h whose log of resource r has evs after
// its own events. It is what ReplaceEvents(h, r, append(its events,
// evs...)) returns (Prev set, the RVs placed in the log's order), but
// for what it shares with h. h and its logs are not changed, and stay
// valid for their readers. The other logs are h's own (the same *Log).
// So are h's order, discovery answers, recorded errors, tables, files
// and span.
//
// Take h's RVs to be decimal integers, and each of evs' one too, after
// every RV the log knows (LastRV) and the one before it. Then the new log
// shares the old one's Initial, Marks, earlier events and computed
// states. The append costs O(len(evs) · log n), amortized: its arrays
// double as they fill. A log's first append, or a second append to one
// history, copies its slices once. Otherwise it is ReplaceEvents, O(n),
// with the same errors: ErrRewrite for events out of order or without an
// object.
func AppendEvents(h *History, r Resource, evs ...Event) (*History, error) {
	i := h.LogIndex(r)
	if i < 0 {
		return nil, fmt.Errorf("%w: no log of %s", ErrRewrite, r)
	}
	l := h.Logs[i]
	for k, e := range evs {
		if e.Object == nil {
			return nil, fmt.Errorf("%w: %s: appended event %d has no object", ErrRewrite, r, k)
		}
	}
	if !appendsInPlace(h, l, evs) {
		out, err := ReplaceEvents(h, r, append(slices.Clip(l.Events), evs...))
		if err != nil {
			return nil, err
		}
		out.Tables = h.Tables
		return out, nil
	}
	out := &History{
		Logs:      slices.Clone(h.Logs),
		Discovery: h.Discovery, Errors: h.Errors, Tables: h.Tables, Files: h.Files, Span: h.Span,
		order: h.order, orderErr: h.orderErr,
	}
	out.Logs[i] = l.appended(evs)
	return out, nil
}

// appendsInPlace reports whether evs can be appended to l, a log of h,
// without rebuilding it. Every RV must be numeric, and each of evs'
// after l's last and the one before it.
func appendsInPlace(h *History, l *Log, evs []Event) bool {
	if h.order == nil || !h.order.numeric || h.orderErr != nil || l.order == nil || !l.order.numeric ||
		l.states == nil || !l.states.serves(l) || len(l.headRV) != len(l.Events)+1 {
		return false
	}
	last, ok := decimalRV(l.LastRV())
	if !ok {
		return false
	}
	if n := len(l.order.vals); n > 0 {
		last = max(last, l.order.vals[n-1])
	}
	for _, e := range evs {
		v, ok := decimalRV(e.RV())
		if !ok || v <= last {
			return false
		}
		last = v
	}
	return true
}

// appended returns l with evs after its events (appendsInPlace holds).
// It is a new version in l's lineage, or in a lineage of its own when l
// is not the newest version of its lineage.
func (l *Log) appended(evs []Event) *Log {
	lin := l.states.lineage(l)
	lin.mu.Lock()
	if len(lin.events) != len(l.Events) {
		// another version extended the lineage past l: l starts its own
		lin.mu.Unlock()
		lin = adopt(l)
		lin.mu.Lock()
	}
	lin.index()
	for _, e := range evs {
		pos := len(lin.events)
		k := e.Object.Key()
		e.Prev, _ = lin.objectAt(l.Initial, k, pos)
		v, _ := decimalRV(e.RV())
		lin.events = append(lin.events, e)
		lin.heads = append(lin.heads, e.RV())
		lin.vals = append(lin.vals, v)
		lin.byKey[k] = append(lin.byKey[k], pos)
	}
	nl := &Log{
		Resource: l.Resource, StartRV: l.StartRV, Initial: l.Initial,
		Events: slices.Clip(lin.events), Marks: l.Marks, Errors: l.Errors,
		Lists: l.Lists, Watches: l.Watches,
		order:  &Order{numeric: true, vals: slices.Clip(lin.vals)},
		headRV: slices.Clip(lin.heads),
	}
	lin.mu.Unlock()
	nl.states = l.states.derive(nl, lin)
	return nl
}
