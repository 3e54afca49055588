package oracle

import (
	"fmt"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/internal/content"
	"github.com/lwreplay/lwreplay/internal/storm"
)

// WriteBoundNames are the invariants WriteBounds counts. When one write
// crosses several, a run ends at the first in this order.
var WriteBoundNames = []string{"no-write-storm", "no-conflict-loop", "no-create-loop"}

// WriteBounds follows a target's writes one at a time, in the order the
// replay answered them. It says which write crosses the bound of
// no-write-storm, no-conflict-loop or no-create-loop. It is the one count
// of the three. The invariants run it over a run's Writes. A run
// (fuzz/harness) runs it as the writes are answered, to end at its first
// broken bound. Its zero value is ready to use; it is not safe for
// concurrent use.
type WriteBounds struct {
	storms  map[objectID]*stormCount
	refused map[string]map[objectID]*refusedRun // by the 409's reason: Conflict, AlreadyExists
}

// stormCount is no-write-storm's count of one object's writes.
type stormCount struct {
	count  *storm.Counter[Write]
	lastRV string // RVAfter of the target's last successful write
}

// refusedRun is one object's writes answered 409 with one reason in a
// row, against one stored version.
type refusedRun struct {
	rv   string // the stored object's resourceVersion they met
	held []Write
}

// Add counts w and returns, by invariant name, why w breaks each bound it
// is the write that crosses (nil when it crosses none).
//
// no-write-storm counts, per object, the target's successful writes with
// the storm counter. A successful write is a 2xx with no dry run: stored,
// or a no-op update. More than writeStormLimit within writeStormWindow is
// a storm, if no other actor changed the object between them. Refusals
// store nothing and re-trigger nothing. The loops and no-request-storm
// judge them.
//
// no-conflict-loop and no-create-loop count, per object, the writes
// answered 409 Conflict (AlreadyExists) in a row. Any other answer to a
// write of it ends the row. The stored object must stay at one
// resourceVersion, one an answer had shown the target. A refusal no read
// could have spared is not counted (Write.Unserved). More than
// conflictLoopLimit (createLoopLimit) is a loop.
func (b *WriteBounds) Add(w Write) map[string]error {
	if w.Key == "" {
		return nil
	}
	id := objectID{w.Resource.ID(), w.Key}
	var crossed map[string]error
	note := func(name string, err error) {
		if err != nil {
			if crossed == nil {
				crossed = map[string]error{}
			}
			crossed[name] = err
		}
	}
	note("no-write-storm", b.addStorm(id, w))
	if held, ok := b.addRefused(id, w, "Conflict", conflictLoopLimit); ok {
		note("no-conflict-loop", fmt.Errorf("%w: %d writes of %s in a row answered 409 Conflict (the object has been modified; please apply your changes to the latest version and try again) from %v to %v of virtual time (%s), while the object stayed at rv %s: the target kept sending a resourceVersion it did not read, want at most %d in a row",
			ErrConflictLoop, len(held), id, held[0].At, w.At, content.WriteCounts(held), rvOrNone(w.RVBefore), conflictLoopLimit))
	}
	if held, ok := b.addRefused(id, w, "AlreadyExists", createLoopLimit); ok {
		note("no-create-loop", fmt.Errorf("%w: %d writes of %s in a row answered 409 AlreadyExists from %v to %v of virtual time (%s), while the object stayed at rv %s: the target kept creating an object it could have read (its lookups miss it: another namespace or scope, a cache that does not hold it), want at most %d in a row",
			ErrCreateLoop, len(held), id, held[0].At, w.At, content.WriteCounts(held), rvOrNone(w.RVBefore), createLoopLimit))
	}
	return crossed
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
		ErrWriteStorm, len(held), id, held[0].At, w.At, content.WriteCounts(held), writeStormLimit, writeStormWindow)
}

// addRefused counts w in id's run of writes answered 409 with reason. It
// returns the run when w is the write that takes it past limit.
func (b *WriteBounds) addRefused(id objectID, w Write, reason string, limit int) (held []Write, crossed bool) {
	if b.refused == nil {
		b.refused = map[string]map[objectID]*refusedRun{}
	}
	runs := b.refused[reason]
	if runs == nil {
		runs = map[objectID]*refusedRun{}
		b.refused[reason] = runs
	}
	if w.Code != 409 || w.Reason != reason {
		delete(runs, id) // any other answer to a write of it ends a run
		return nil, false
	}
	if w.Unserved {
		return nil, false
	}
	r := runs[id]
	if r == nil || r.rv != w.RVBefore {
		r = &refusedRun{rv: w.RVBefore}
		runs[id] = r
	}
	r.held = append(r.held, w)
	return r.held, len(r.held) == limit+1
}
