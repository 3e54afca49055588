package oracle

import (
	"fmt"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/internal/content"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/storm"
)

// The invariants on what a client writes are no-write-storm,
// no-conflict-loop and no-create-loop. They judge Observation.Writes, the
// replay's answers to the target's writes.
//
// The answers themselves say what changed an object between two of the
// target's writes. A write's RVBefore is the resourceVersion stored under
// its key when the replay answered it. The target's own stored writes are
// events of the served history, placed at their RVAfter. So when a write's
// RVBefore is the RVAfter of the target's previous write of the object,
// only the target changed it between them. When they differ, another
// actor's change came between: an event the target did not make.

// Bounds of no-write-storm, no-conflict-loop and no-create-loop.
const (
	// writeStormWindow and writeStormLimit bound a write storm. More than
	// writeStormLimit successful writes of one object within
	// writeStormWindow of virtual time is a storm, if none answers another
	// actor's change. They are the bounds of a request storm
	// (internal/storm).
	//
	// controller-runtime requeues a failed Reconcile with its default rate
	// limiter (workqueue.DefaultTypedControllerRateLimiter). Per item it
	// waits 5 ms, doubling to 1000 s; overall it allows 10 qps in bursts
	// of 100. So a failing key is tried at 0, 5, 15, 35 ms, ... 5.1 s:
	// 11 times within 10 s. A reconciler whose write stores what it wants
	// is not retried. Its write's own watch event finds nothing left to
	// write. So 31 writes of one object within 10 s, with no outside
	// change, are a reconciler fighting itself. Two writes may undo each
	// other, or a status may change on every reconcile (a timestamp). Each
	// write's own event triggers the next.
	writeStormWindow = storm.Window
	writeStormLimit  = storm.Limit
	// conflictLoopLimit is how many 409 Conflict answers in a row one
	// object's writes may get while the stored object stays the same.
	// Such a conflict says the client sent a resourceVersion it did not
	// read from the object as stored now. A client that reads it again
	// succeeds on the next try, from the server or from a fresh cache.
	// The controller-runtime manager retries a failed Reconcile after
	// 5 ms, doubling to 1000 s. That is at most 19 tries in the longest run, even with a
	// cache stale the whole run. The longest run is 35 minutes: the
	// 15-minute watchdog plus twice the default live bound. So 21 in a row
	// is a client that keeps sending a stale resourceVersion without
	// reading. One that retries with no backoff, or on a fixed interval,
	// reaches it.
	conflictLoopLimit = 20
	// createLoopLimit is how many creates of one object in a row may be
	// answered 409 AlreadyExists while the stored object stays the same.
	// The stored version must be one an answer had shown the target. A
	// client that looks the object up (its cache, or a GET) finds it and
	// does not create it again. The controller-runtime backoff tries a
	// failing key at most 19 times in the longest run (see
	// conflictLoopLimit). So 21 in a row is a client whose lookups miss
	// what it made.
	createLoopLimit = conflictLoopLimit
)

// writeVerbs are the methods of Request.Verb that write.
var writeVerbs = map[string]bool{"POST": true, "PUT": true, "PATCH": true, "DELETE": true}

// writeSite is where the target sent the write of resource answered at
// at. It is the site of the last write request of resource sent at or
// before at ("" when the run kept no stack of it).
func writeSite(o *observe.Observation, resource string, at time.Duration) string {
	site := ""
	for _, r := range o.Requests {
		if r.At > at {
			break
		}
		if writeVerbs[r.Verb] && r.Resource == resource {
			site = requestSite(r)
		}
	}
	return site
}

// objectID names one object a write is of: its resource and key (a
// subresource's write is of its object).
type objectID struct {
	res history.Resource
	key string
}

// String renders id as "resource key".
func (id objectID) String() string { return id.res.Name() + " " + id.key }

// writesOf reports why o's writes cannot be judged (ErrNotJudged), or nil.
func writesOf(o *observe.Observation, sentinel error) error {
	if o == nil {
		return fmt.Errorf("%w: %w: nil observation", sentinel, ErrNoObservation)
	}
	if !o.WritesLogged {
		return fmt.Errorf("%w: the replay did not log the target's writes (a reproducer's verbatim replay)", ErrNotJudged)
	}
	return nil
}

// checkNoWriteStorm is no-write-storm: the first storm WriteBounds finds
// in o's writes, at its write's site.
func checkNoWriteStorm(o *observe.Observation) error {
	if err := writesOf(o, ErrWriteStorm); err != nil {
		return err
	}
	return firstCrossed(o, "no-write-storm")
}

// checkNoConflictLoop is no-conflict-loop: the first conflict loop
// WriteBounds finds in o's writes, at its write's site. A verbatim replay
// logs no writes. There it counts each resource's write requests answered
// 409 in a row instead (a request names no object).
func checkNoConflictLoop(o *observe.Observation) error {
	if o == nil {
		return fmt.Errorf("%w: %w: nil observation", ErrConflictLoop, ErrNoObservation)
	}
	if !o.WritesLogged {
		return conflictLoopOfRequests(o)
	}
	return firstCrossed(o, "no-conflict-loop")
}

// checkNoCreateLoop is no-create-loop: the first create loop WriteBounds
// finds in o's writes, at its write's site. A verbatim replay logs no
// writes, so it is not judged. Its requests name no object, and creates of
// many objects each refused once (a restart's) are no loop.
func checkNoCreateLoop(o *observe.Observation) error {
	if err := writesOf(o, ErrCreateLoop); err != nil {
		return err
	}
	return firstCrossed(o, "no-create-loop")
}

// firstCrossed runs WriteBounds over o's writes. It returns the first
// crossing of invariant name's bound, at its write's site (nil when none).
func firstCrossed(o *observe.Observation, name string) error {
	var b WriteBounds
	for _, w := range o.Writes {
		if err := b.Add(w)[name]; err != nil {
			return withSite(err, writeSite(o, w.Resource.Name(), w.At))
		}
	}
	return nil
}

// conflictLoopOfRequests is no-conflict-loop on the target's requests. It
// looks for more than conflictLoopLimit updates, patches and deletes of a
// resource answered 409 in a row (none answered otherwise between them). A
// create's 409 is AlreadyExists, no conflict: creates are left out.
func conflictLoopOfRequests(o *observe.Observation) error {
	inRow := map[string][]observe.Request{}
	for _, r := range o.Requests {
		if !writeVerbs[r.Verb] || r.Verb == "POST" || r.Code == 0 {
			continue
		}
		if r.Code != 409 {
			delete(inRow, r.Resource)
			continue
		}
		held := append(inRow[r.Resource], r)
		inRow[r.Resource] = held
		if len(held) <= conflictLoopLimit {
			continue
		}
		return withSite(fmt.Errorf("%w: %d write requests of %s in a row answered 409 from %v to %v of virtual time (%s), want at most %d in a row",
			ErrConflictLoop, len(held), r.Resource, held[0].At, r.At, content.VerbCounts(held), conflictLoopLimit), requestSite(r))
	}
	return nil
}

// rvOrNone is rv, or "none" when it is "".
func rvOrNone(rv string) string {
	if rv == "" {
		return "none"
	}
	return rv
}
