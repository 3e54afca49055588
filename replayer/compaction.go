package replayer

import (
	"errors"

	"github.com/lwreplay/lwreplay/history"
)

// The compaction point of a log is the oldest resourceVersion whose state
// may still be read exactly, continued from or watched from. Every RV
// before it is expired. It is the newest of the log's start, the server's
// compaction option (WithCompaction) and the point a fault's 410 Expired
// moved it to. Like a real apiserver's, it only moves forward. Once a
// fault has refused an RV as expired (expire-watch, expire-continue,
// recreate), that RV and every older one stay expired for the rest of the
// run. It never passes the newest state the server can serve, as etcd
// never compacts its current revision. So a client that relists can
// always watch from what it listed.

// watchFloor returns the compaction point of l: the oldest
// resourceVersion a watch may start from. A restarted server's watch
// cache may start later still (see restarts.cacheStart). It is the
// compaction option, or the log's start when that is later or the option
// cannot be placed. A fault's 410 may have moved it later still.
func (st *store) watchFloor(l *history.Log) string {
	floor := l.StartRV
	st.mu.Lock()
	c, f := st.compaction, st.floors[l.Resource.ID()]
	st.mu.Unlock()
	if c != "" && l.Order().Less(floor, c) {
		floor = c
	}
	if f != "" && l.Order().Less(floor, f) {
		floor = f
	}
	return floor
}

// compacted reports whether rv is older than the compaction point of l
// and so can no longer be read exactly.
func (st *store) compacted(l *history.Log, rv string) bool {
	if _, err := l.Position(rv); errors.Is(err, history.ErrTooOld) {
		return true
	}
	return l.Order().Less(rv, st.watchFloor(l))
}

// compactThrough makes rv and every older resourceVersion of res expired
// for the rest of the run, after a fault answered 410 Expired for it. The
// compaction point moves to the first event after rv. When rv is at the
// newest state the server can serve, it moves to that state's first RV:
// the newest state is never compacted. It returns the compaction point
// and whether it moved. It never moves back. "", "0" and an RV the served
// history cannot place move nothing.
func (st *store) compactThrough(res history.Resource, rv string) (floor string, moved bool) {
	l, ok := st.log(res)
	if !ok || rv == "" || rv == "0" {
		return "", false
	}
	p, err := l.Position(rv)
	switch {
	case errors.Is(err, history.ErrTooLarge):
		p = l.End()
	case err != nil:
		return "", false
	}
	// the first RV of the oldest state that stays readable
	if to := min(p+1, st.available(l)); to > 0 {
		return st.raiseFloor(l, l.Events[to-1].RV())
	}
	return st.raiseFloor(l, l.StartRV)
}

// raiseFloor moves the compaction point of l's resource to floor unless
// it is there or past it already. It returns the compaction point and
// whether it moved.
func (st *store) raiseFloor(l *history.Log, floor string) (string, bool) {
	cur := st.watchFloor(l)
	if !l.Order().Less(cur, floor) {
		return cur, false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	id := l.Resource.ID()
	if f := st.floors[id]; f != "" && !l.Order().Less(f, floor) {
		return f, false // raised meanwhile
	}
	st.floors[id] = floor
	return floor, true
}

// compactedTo is a firing's detail suffix saying the compaction point
// moved: ", compacted to rv 1007"; "" when it did not.
func compactedTo(floor string, moved bool) string {
	if !moved {
		return ""
	}
	return ", compacted to rv " + floor
}
