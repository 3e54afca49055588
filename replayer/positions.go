package replayer

import (
	"math"
	"strconv"
	"time"

	"github.com/lwreplay/lwreplay/history"
)

// The positions of the served state: how far the paced clock has made
// each log available, and the head, the newest position any answer
// reached. The store keeps both per resource.

// available returns the newest position of l whose events may be served
// now, under the pace. It is past the events whose recorded offsets the
// paced clock has reached, up to the first it has not. The head wins if
// it is newer. The clock only moves forward, so the count of events
// reached is kept and each call looks only at the events after it.
func (st *store) available(l *history.Log) int {
	if st.pace.Mode == PaceMax {
		return l.End()
	}
	virt := st.pacedNow()
	st.mu.Lock()
	defer st.mu.Unlock()
	id := l.Resource.ID()
	n := st.reached[id]
	for n < l.End() && l.Events[n].At <= virt {
		n++
	}
	st.reached[id] = n
	return max(n, st.heads[id])
}

// pacedNow is the paced clock: the recorded offset the replay has reached
// (the time since the server started, times the pace's factor).
func (st *store) pacedNow() time.Duration {
	if v := float64(time.Since(st.start)) * st.pace.factor(); v < math.MaxInt64 {
		return time.Duration(v)
	}
	return time.Duration(math.MaxInt64) // a factor so large the clock is past every offset
}

// pacedHappened is the recorded offset up to which every recorded event
// has happened: pacedNow, or every offset under PaceMax.
func (st *store) pacedHappened() time.Duration {
	if st.pace.Mode == PaceMax {
		return time.Duration(math.MaxInt64)
	}
	return st.pacedNow()
}

// nextAt returns how long until event pos becomes available under the
// pace; 0 if it is available now.
func (st *store) nextAt(l *history.Log, pos int) time.Duration {
	if st.pace.Mode == PaceMax || pos >= l.End() || pos < st.available(l) {
		return 0
	}
	at := time.Duration(float64(l.Events[pos].At) / st.pace.factor())
	if d := at - time.Since(st.start); d > 0 {
		return d
	}
	return 0
}

// head returns the newest position any answer reached in l's resource.
func (st *store) head(l *history.Log) int {
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.heads[l.Resource.ID()]
}

// servedRV returns the newest resourceVersion an answer reached in any
// log of h, when h's resourceVersions are numbers ("" otherwise, or when
// none was reached). An apiserver never renames what it served.
func (st *store) servedRV(h *history.History) string {
	st.mu.Lock()
	defer st.mu.Unlock()
	var newest uint64
	found := false
	for _, l := range h.Logs {
		p, ok := st.heads[l.Resource.ID()]
		if !ok {
			continue
		}
		if !l.Order().Numeric() {
			return ""
		}
		if n, err := strconv.ParseUint(l.RVAt(p), 10, 64); err == nil && (!found || n > newest) {
			newest, found = n, true
		}
	}
	if !found {
		return ""
	}
	return strconv.FormatUint(newest, 10)
}

// advance records that an answer reached pos of l: a read after it
// sees the state there.
func (st *store) advance(l *history.Log, pos int) { st.reach(l, pos, false) }

// show records that a read's answer (a LIST, GET, or a watch's frame)
// showed the target l's state at pos, and advances to it.
func (st *store) show(l *history.Log, pos int) { st.reach(l, pos, true) }

// reach is advance, and show when shown.
func (st *store) reach(l *history.Log, pos int, shown bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	id := l.Resource.ID()
	if pos > st.heads[id] {
		st.heads[id] = pos
	}
	if shown && pos > st.shown[id] {
		st.shown[id] = pos
	}
}

// watching records that the target asked for a watch of l's resource,
// whether or not a fault let it open.
func (st *store) watching(l *history.Log) {
	st.mu.Lock()
	defer st.mu.Unlock()
	st.watched[l.Resource.ID()] = true
}

// shownHead returns the newest position a read's answer showed in l's
// resource since the listings were last forgotten
// (Server.ForgetListings: the target's instance started afresh), and
// whether the target asked for a watch of it since.
func (st *store) shownHead(l *history.Log) (pos int, watched bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	id := l.Resource.ID()
	return st.shown[id], st.watched[id]
}

// moveOn advances the head to the newest state the pace allows. A 410
// Expired says the server has moved past the client's resourceVersion
// (its history was compacted). So the client lists the newest state
// next. The changes in between reach it only as the difference, as on a
// real apiserver.
func (st *store) moveOn(l *history.Log) {
	st.advance(l, st.available(l))
}

// newestPosition is the state a consistent read (and an RV "0" read)
// sees. It is the head, not the end of the log, so that a fresh client
// lists the initial state and then watches every event. It is never
// older than the compaction point, which no watch could start from.
func (st *store) newestPosition(l *history.Log) int {
	pos := st.head(l)
	if c, err := l.Position(st.watchFloor(l)); err == nil && c > pos {
		pos = c
	}
	return pos
}

// happenedNewest is the newest resourceVersion of what has happened in
// any log of h (a numeric history's). That is what some answer reached,
// or what the pace has (under PaceMax: every recorded event). A write
// comes after it.
func (st *store) happenedNewest(h *history.History) uint64 {
	var out uint64
	for _, l := range h.Logs {
		if v, err := strconv.ParseUint(st.happenedRV(l, st.available(l)), 10, 64); err == nil {
			out = max(out, v)
		}
	}
	return out
}

// happenedRV is the resourceVersion of l at pos as the replay serves it
// now: a LIST's, a watch's start and bookmarks, and what a write comes
// after. Log.RVAt(pos) is raised by every bookmark and list
// resourceVersion recorded at that state, however late. A log whose last
// event is early (or that has none) would then say, from the start of a
// paced replay, the RV of a bookmark recorded minutes later, past other
// logs' changes still to come. So under a pace only the marks whose
// recorded offset the paced clock has reached count (those of unknown
// time count as reached).
func (st *store) happenedRV(l *history.Log, pos int) string {
	rv := l.RVAt(pos)
	if st.pace.Mode == PaceMax {
		return rv
	}
	out := l.StartRV
	if pos > 0 && pos <= len(l.Events) {
		out = l.Events[pos-1].RV()
	}
	if out == rv {
		return rv
	}
	o, now := l.Order(), st.pacedNow()
	for _, m := range l.Marks {
		if m.At > now || !o.Less(out, m.RV) || o.Less(rv, m.RV) {
			continue
		}
		out = m.RV
	}
	return out
}
