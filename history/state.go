package history

import (
	"maps"
	"slices"
	"strings"
	"sync"
)

// maxSavedStates bounds the states a log remembers besides its
// checkpoints.
const maxSavedStates = 4

// checkpointEvery is how many events apart a log's checkpoints are.
// StateAt keeps those states once it has passed them. So a call at an
// earlier position than any remembered replays at most this many events.
// For a million events, 16 checkpoints: each a slice of pointers, one an
// object.
const checkpointEvery = 1 << 16

// stateMemo remembers states of a log that StateAt computed. So calls at
// one position (the pages of one LIST) compute it once. A call at another
// position advances the nearest earlier state, instead of replaying the
// log from its start. Its states are shared with StateAt's callers and
// never changed. It serves the log's Initial and Events as finish saw
// them: a copy of the log given other ones gets no help from it.
type stateMemo struct {
	initial []*Object
	events  []Event

	mu    sync.Mutex
	every int // events between checkpoints
	// checkpoints[k] is the state at k*every (nil while not computed);
	// checkpoints[0], the initial state, is computed on first need.
	checkpoints [][]*Object
	saved       []savedState // the newest states asked for
	tick        uint64       // counts lookups, for evicting the least recently used
	lin         *lineage     // what the log's appended versions share (append.go); nil until needed
}

// savedState is the state at pos.
type savedState struct {
	pos  int
	objs []*Object
	used uint64
}

// StateAt returns the objects at pos, sorted by key. The slice is shared
// with other callers, since StateAt remembers the states it computed. Do
// not change its elements or the objects. Appending to it copies it.
// Calls at one position cost one computation. A call at another position
// costs the events since the nearest earlier state remembered, and one
// pass over the state. That state is a checkpoint (kept every 65,536
// events passed) or a state computed before. StateAt is safe for
// concurrent use. It remembers states for the Initial and Events the log
// was built with; they are not to change in place. A copy of the log
// given other slices (and a Log not made by Build) computes each state
// afresh.
func (l *Log) StateAt(pos int) []*Object {
	pos = max(0, min(pos, len(l.Events)))
	m := l.states
	if m == nil || !m.serves(l) {
		return advance(advance(nil, initialEvents(l.Initial)), l.Events[:pos])
	}
	base, objs, exact := m.nearest(pos)
	if exact {
		return objs
	}
	for next := (base/m.every + 1) * m.every; next < pos; next += m.every {
		objs = advance(objs, l.Events[base:next])
		base = next
		m.checkpoint(next/m.every, objs)
	}
	return m.save(pos, advance(objs, l.Events[base:pos]))
}

// newStateMemo returns an empty memo of l's states.
func newStateMemo(l *Log) *stateMemo {
	return &stateMemo{initial: l.Initial, events: l.Events, every: checkpointEvery}
}

// serves reports whether m was made for l's Initial and Events.
func (m *stateMemo) serves(l *Log) bool {
	return sameSlice(m.initial, l.Initial) && sameSlice(m.events, l.Events)
}

// sameSlice reports whether a and b are the same elements of one array.
func sameSlice[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// nearest returns the remembered state at pos (exact), or else the newest
// one before it, and its position.
func (m *stateMemo) nearest(pos int) (base int, objs []*Object, exact bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if len(m.checkpoints) == 0 {
		m.checkpoints = [][]*Object{advance(nil, initialEvents(m.initial))}
	}
	k := min(pos/m.every, len(m.checkpoints)-1)
	for m.checkpoints[k] == nil {
		k--
	}
	base, objs = k*m.every, m.checkpoints[k]
	m.tick++
	best := -1
	for i, s := range m.saved {
		if s.pos <= pos && s.pos > base && (best < 0 || s.pos > m.saved[best].pos) {
			best = i
		}
	}
	if best >= 0 {
		s := &m.saved[best]
		s.used = m.tick
		base, objs = s.pos, s.objs
	}
	return base, objs, base == pos
}

// checkpoint remembers objs as checkpoint k (unless another caller did).
func (m *stateMemo) checkpoint(k int, objs []*Object) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for len(m.checkpoints) <= k {
		m.checkpoints = append(m.checkpoints, nil)
	}
	if m.checkpoints[k] == nil {
		m.checkpoints[k] = objs
	}
}

// save remembers objs as the state at pos. It forgets the least recently
// used state when maxSavedStates are saved. It returns the state at pos:
// the one another caller saved first, if any.
func (m *stateMemo) save(pos int, objs []*Object) []*Object {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tick++
	for i := range m.saved {
		if m.saved[i].pos == pos {
			m.saved[i].used = m.tick
			return m.saved[i].objs
		}
	}
	s := savedState{pos: pos, objs: objs, used: m.tick}
	if len(m.saved) < maxSavedStates {
		m.saved = append(m.saved, s)
		return objs
	}
	lru := 0
	for i := range m.saved {
		if m.saved[i].used < m.saved[lru].used {
			lru = i
		}
	}
	m.saved[lru] = s
	return objs
}

// initialEvents returns objs as ADDED events, so that advance makes the
// initial state of them (the last one of a key counting).
func initialEvents(objs []*Object) []Event {
	evs := make([]Event, len(objs))
	for i, o := range objs {
		evs[i] = Event{Type: Added, Object: o}
	}
	return evs
}

// advance returns state (sorted by key, one object a key) after evs. The
// result is a new slice with no room to append in place; state is not
// changed.
func advance(state []*Object, evs []Event) []*Object {
	if len(evs) == 0 && state != nil {
		return state
	}
	after := make(map[string]*Object, min(len(evs), len(state)+len(evs))) // key -> object after evs; nil: deleted
	for _, e := range evs {
		if e.Type == Deleted {
			after[e.Object.Key()] = nil
		} else {
			after[e.Object.Key()] = e.Object
		}
	}
	keys := slices.Sorted(maps.Keys(after))
	out := make([]*Object, 0, len(state)+len(keys))
	i, j := 0, 0
	for i < len(state) || j < len(keys) {
		c := 1 // state[i] (-1) or keys[j] (+1) first, or the same key (0)
		switch {
		case j == len(keys):
			c = -1
		case i < len(state):
			c = strings.Compare(state[i].Key(), keys[j])
		}
		if c < 0 {
			out = append(out, state[i])
			i++
			continue
		}
		if o := after[keys[j]]; o != nil {
			out = append(out, o)
		}
		if c == 0 {
			i++
		}
		j++
	}
	if cap(out) > len(out)+len(out)/4 {
		out = slices.Clone(out)
	}
	return slices.Clip(out)
}
