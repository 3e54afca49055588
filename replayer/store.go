package replayer

import (
	"sync"
	"time"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/discovery"
)

// store owns the served state: the history requests are answered from,
// and what answers and faults did to each resource's view of it. It is
// the one place the served history lives, with a plan or without. Its
// state is keyed by resource (Resource.ID), so a change of the history
// carries it over without re-keying. Other code reads and changes it
// only through its methods.
//
// The served history changes under a fault that rewrites it (recreate,
// opaque-rv). It changes with each write: the target's, an actor's, the
// garbage collector's. It changes when a log is made for an unrecorded
// resource. The write path (engine) makes those changes one at a time.
type store struct {
	start time.Time // the paced clock's zero: the server's start
	pace  Pace      // how fast recorded events become available

	// mu guards every field below. No method holds it while it calls
	// another that takes it.
	mu sync.Mutex
	// h is the served history.
	h *history.History
	// disco is what discovery tells of h.
	disco *discovery.Doc
	// compaction is WithCompaction's resourceVersion, "" for each log's
	// start; opaque-rv renames it.
	compaction string
	// heads holds, per resource, the newest position any answer reached.
	heads map[history.Resource]int
	// shown holds, per resource, the newest position a read's answer
	// reached since the listings were last forgotten: what the target's
	// current instance may have read (a fresh one has read nothing).
	shown map[history.Resource]int
	// watched holds the resources the target's current instance opened a
	// watch of, since the listings were last forgotten.
	watched map[history.Resource]bool
	// reached holds, per resource, the number of events before the first
	// whose recorded offset the paced clock has not reached (see
	// available).
	reached map[history.Resource]int
	// floors holds, per resource, the compaction point a fault's 410
	// Expired moved it to (see compactThrough).
	floors map[history.Resource]string
	// listings holds, per resource, the first complete listing's
	// resourceVersion (see Server.FirstListing).
	listings map[history.Resource]string
	// changed is closed when a write changes h, then replaced.
	changed chan struct{}
	// wrote says some write changed h: open watches then follow their
	// resource's log as the writes leave it.
	wrote bool
}

// newStore returns the state of a server that serves h from start.
func newStore(h *history.History, start time.Time, pace Pace, compaction string) *store {
	return &store{
		start: start, pace: pace, h: h, compaction: compaction,
		heads: map[history.Resource]int{}, shown: map[history.Resource]int{}, watched: map[history.Resource]bool{}, reached: map[history.Resource]int{},
		floors: map[history.Resource]string{}, listings: map[history.Resource]string{},
		changed: make(chan struct{}),
	}
}

// history returns the served history.
func (st *store) history() *history.History {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.h
}

// log returns the served log of res.
func (st *store) log(res history.Resource) (*history.Log, bool) {
	return st.history().Log(res)
}

// discovery returns what discovery tells of the served history.
func (st *store) discovery() *discovery.Doc {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.disco
}

// setDiscovery sets what discovery tells.
func (st *store) setDiscovery(d *discovery.Doc) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.disco = d
}

// follow returns the served log of l's resource once a write changed the
// history. Before that, or when the history has no such log, it returns l
// itself. It also returns a channel closed when a write next changes it.
func (st *store) follow(l *history.Log) (*history.Log, <-chan struct{}) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.wrote {
		if nl, ok := st.h.Log(l.Resource); ok {
			return nl, st.changed
		}
	}
	return l, st.changed
}

// write makes next, a write's change of the served history, the one
// served. Each resource's head and paced count move as shift moves its
// positions (nil: they stay). The compaction points move as moveRV moves
// their resourceVersions (nil: they stay). d, when not nil, is what
// discovery tells next. Open watches are told.
func (st *store) write(next *history.History, shift func(res history.Resource, pos int) int, moveRV func(string) string, d *discovery.Doc) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.wrote = true
	st.replaceLocked(next, shift, moveRV, d)
}

// addLog makes next, the served history with a log made for an
// unrecorded resource, the one served; d is what discovery tells next.
// Open watches are told.
func (st *store) addLog(next *history.History, d *discovery.Doc) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.replaceLocked(next, nil, nil, d)
}

// replaceLocked is write without marking a write; st.mu is held.
func (st *store) replaceLocked(next *history.History, shift func(history.Resource, int) int, moveRV func(string) string, d *discovery.Doc) {
	if shift != nil {
		for id, p := range st.heads {
			st.heads[id] = max(p, shift(id, p))
		}
		for id, p := range st.shown {
			st.shown[id] = max(p, shift(id, p))
		}
		for id, p := range st.reached {
			st.reached[id] = max(p, shift(id, p))
		}
	}
	if moveRV != nil {
		for id, f := range st.floors {
			st.floors[id] = moveRV(f)
		}
	}
	st.h = next
	if d != nil {
		st.disco = d
	}
	close(st.changed)
	st.changed = make(chan struct{})
}

// recreated makes next, a recreate fault's change of the served history,
// the one served: two events were placed at position p of res's log.
// Its head moves past them, so that a relist sees the result, and every
// compaction point moves as moveRV moves its resourceVersion. Open
// watches are not told: the watch the fault struck is answered 410.
func (st *store) recreated(next *history.History, res history.Resource, p int, moveRV func(string) string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	id := res.ID()
	for _, k := range []map[history.Resource]int{st.heads, st.shown, st.reached} {
		if n, ok := k[id]; ok && n > p {
			k[id] = n + 2
		}
	}
	st.heads[id] = max(st.heads[id], p+2)
	for id, f := range st.floors {
		st.floors[id] = moveRV(f)
	}
	st.h = next
}

// renamed makes next, the served history with every resourceVersion
// renamed (opaque-rv, before any request), the one served, with the
// compaction option's resourceVersion renamed to compaction.
func (st *store) renamed(next *history.History, compaction string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.h, st.compaction = next, compaction
}

// compactionRV returns WithCompaction's resourceVersion as served ("":
// each log's start).
func (st *store) compactionRV() string {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.compaction
}

// firstListing returns the resourceVersion of the first complete listing
// of res served since the listings were last forgotten.
func (st *store) firstListing(res history.Resource) (rv string, ok bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	rv, ok = st.listings[res.ID()]
	return rv, ok
}

// forgetListings forgets the listings served so far, and what answers
// have shown (shownHead).
func (st *store) forgetListings() {
	st.mu.Lock()
	defer st.mu.Unlock()
	clear(st.listings)
	clear(st.shown)
	clear(st.watched)
}

// listed notes that a complete listing of res at rv was served. The
// first one stays.
func (st *store) listed(res history.Resource, rv string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.listings[res.ID()]; !ok {
		st.listings[res.ID()] = rv
	}
}

// exhaustedOf reports whether res's log has been served to its end (true
// for a resource the served history has no log of).
func (st *store) exhaustedOf(res history.Resource) bool {
	l, ok := st.log(res)
	return !ok || st.head(l) >= l.End()
}

// exhausted reports whether every log has been served to its end.
func (st *store) exhausted() bool {
	for _, l := range st.history().Logs {
		if st.head(l) < l.End() {
			return false
		}
	}
	return true
}

// newestRVs returns, per resource, the resourceVersion of the newest
// state a consistent read sees now (see newestPosition).
func (st *store) newestRVs() map[history.Resource]string {
	out := map[history.Resource]string{}
	for _, l := range st.history().Logs {
		out[l.Resource.ID()] = st.happenedRV(l, st.newestPosition(l))
	}
	return out
}
