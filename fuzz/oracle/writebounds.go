package oracle

import (
	"fmt"
	"time"

	"github.com/lwreplay/lwreplay/internal/storm"
)

// WriteBounds follows a target's writes one at a time, in the order the
// replay answered them, and says which write breaks no-write-storm or
// no-conflict-loop. It is the one count of both: the invariants run it
// over a run's Writes, and a run (fuzz/harness) runs it as the writes are
// answered, to end at the first broken bound. Its zero value is ready to
// use; it is not safe for concurrent use.
type WriteBounds struct {
	storms    map[objectID]*stormCount
	conflicts map[objectID]*conflictRun
}

// stormCount is no-write-storm's count of one object's writes.
type stormCount struct {
	count  *storm.Counter[Write]
	lastRV string // RVAfter of the target's last successful write
}

// conflictRun is one object's 409 Conflict answers in a row.
type conflictRun struct {
	rv    string // the stored object's resourceVersion they met
	held  []Write
	first time.Duration
}

// Add counts w and returns, when w is the write that crosses one, why it
// breaks no-write-storm (storm, wrapping ErrWriteStorm) or
// no-conflict-loop (conflict, wrapping ErrConflictLoop); nil for a bound
// it keeps.
//
// no-write-storm counts, per object, the target's successful writes (2xx,
// no dry run: stored, or a no-op update) with the storm counter: more
// than writeStormLimit within writeStormWindow with no other actor's
// change of the object between them is a storm. Refusals store nothing
// and re-trigger nothing; no-conflict-loop and no-request-storm judge
// them. no-conflict-loop counts, per object, the 409 Conflict answers in
// a row against one stored version (the same RVBefore, no other answer to
// a write of the object between them): more than conflictLoopLimit is a
// loop.
func (b *WriteBounds) Add(w Write) (storm, conflict error) {
	if w.Key == "" {
		return nil, nil
	}
	id := objectID{w.Resource.ID(), w.Key}
	return b.addStorm(id, w), b.addConflict(id, w)
}

// addStorm is Add's no-write-storm.
func (b *WriteBounds) addStorm(id objectID, w Write) error {
	if w.DryRun || w.Code < 200 || w.Code >= 300 {
		return nil
	}
	if b.storms == nil {
		b.storms = map[objectID]*stormCount{}
	}
	st := b.storms[id]
	switch {
	case st == nil:
		st = &stormCount{count: storm.NewCounter[Write](writeStormWindow, writeStormLimit)}
		b.storms[id] = st
	case w.RVBefore != st.lastRV:
		st.count.Reset() // another actor changed it since: this write may answer that
	}
	st.lastRV = w.RVAfter
	if !st.count.Add(time.Time{}.Add(w.At), w) {
		return nil
	}
	held := st.count.Held()
	return fmt.Errorf("%w: %d writes of %s from %v to %v of virtual time (%s) with no other change of it between them, want at most %d within %v",
		ErrWriteStorm, len(held), id, held[0].At, w.At, writeCounts(held), writeStormLimit, writeStormWindow)
}

// addConflict is Add's no-conflict-loop.
func (b *WriteBounds) addConflict(id objectID, w Write) error {
	if b.conflicts == nil {
		b.conflicts = map[objectID]*conflictRun{}
	}
	if w.Code != 409 || w.Reason != "Conflict" {
		delete(b.conflicts, id) // an answer to a write of it that is no conflict ends a run
		return nil
	}
	if w.Unserved {
		return nil // a conflict with a version no answer had shown the target: no read of its could have told it
	}
	r := b.conflicts[id]
	if r == nil || r.rv != w.RVBefore {
		r = &conflictRun{rv: w.RVBefore, first: w.At}
		b.conflicts[id] = r
	}
	r.held = append(r.held, w)
	if len(r.held) <= conflictLoopLimit {
		return nil
	}
	return fmt.Errorf("%w: %d writes of %s in a row answered 409 Conflict (the object has been modified; please apply your changes to the latest version and try again) from %v to %v of virtual time (%s), while the object stayed at rv %s: the target kept sending a resourceVersion it did not read, want at most %d in a row",
		ErrConflictLoop, len(r.held), id, r.first, w.At, writeCounts(r.held), rvOrNone(r.rv), conflictLoopLimit)
}
