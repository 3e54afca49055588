package replayer

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/writes"
)

// The recorded history is the other actors. Under a paced replay a
// target's write can come before recorded events of the object it wrote;
// each of those is another writer's change, and is served as that writer's
// write onto the object as the target left it (writes.Rebase: the
// difference between its recorded versions, so the target's changes of
// other fields survive and the later writer wins a field both wrote),
// with kube-apiserver's answer to such a write:
//
//   - a recorded change of an object the target deleted: the writer's
//     update or delete finds nothing (404), no event;
//   - a recorded create of a name the target created first: the writer's
//     create is refused (409 AlreadyExists), no event; its later recorded
//     changes apply as differences from the object it recorded;
//   - a recorded delete of an object that carries finalizers (the
//     target's): the object is kept, marked with a deletionTimestamp at
//     the event's time (store.go Delete → updateForGracefulDeletionAndFinalizers),
//     until the target removes them;
//   - a recorded change that makes no difference to the object now: no
//     event (kube-apiserver stores no no-op update);
//   - a recorded change that empties the finalizers of an object being
//     deleted deletes it.
//
// The recorded versions of an event, once it is rebased, are kept beside
// the served history (Server.recorded), so that a later write rebases it
// again from what was recorded, not from what it was served as.

// recordedChange is an event's change as recorded: the object before it
// (nil for a create) and after.
type recordedChange struct {
	before, after *history.Object
}

// recordedChanges are the recorded changes of the events writes rebased,
// by Resource.ID and served RV.
type recordedChanges map[history.Resource]map[string]recordedChange

// of returns the recorded change of e, an event of res's log: the one
// kept when a write rebased it, else e's own.
func (rc recordedChanges) of(res history.Resource, e history.Event) recordedChange {
	if c, ok := rc[res.ID()][e.RV()]; ok {
		return c
	}
	return recordedChange{before: e.Prev, after: e.Object}
}

// movedRecorded is rc rekeyed as moveRV moved the served RVs.
func movedRecorded(rc recordedChanges, moveRV func(string) string) recordedChanges {
	out := make(recordedChanges, len(rc))
	for id, by := range rc {
		moved := make(map[string]recordedChange, len(by))
		for rv, c := range by {
			moved[moveRV(rv)] = c
		}
		out[id] = moved
	}
	return out
}

// rebaseLater serves the events of evs from position from on, of the keys
// a write just stored (cur: the object now by key, nil when deleted), as
// the other actors' writes onto what the target left: it returns the
// events to serve instead. rc holds the recorded changes of the events
// rebased before, and takes those of these.
func (s *Server) rebaseLater(rc recordedChanges, k writes.Kind, evs []history.Event, from int, cur map[string]*unstructured.Unstructured) ([]history.Event, error) {
	touched := false
	for _, e := range evs[from:] {
		if _, ok := cur[e.Object.Key()]; ok {
			touched = true
			break
		}
	}
	if !touched {
		return evs, nil
	}
	res := k.Resource
	out := make([]history.Event, from, len(evs))
	copy(out, evs[:from])
	for _, e := range evs[from:] {
		key := e.Object.Key()
		now, ok := cur[key]
		if !ok {
			out = append(out, e)
			continue
		}
		rec := rc.of(res, e)
		ne, next, keep, err := s.rebaseEvent(k, e, rec, now)
		if err != nil {
			return nil, err
		}
		cur[key] = next
		if !keep {
			continue
		}
		if rc[res.ID()] == nil {
			rc[res.ID()] = map[string]recordedChange{}
		}
		rc[res.ID()][ne.RV()] = rec
		out = append(out, ne)
	}
	return out, nil
}

// rebaseEvent is e, recorded as rec, served onto now (nil: the target
// deleted the object): the event to serve (keep false: none) and the
// object after it.
func (s *Server) rebaseEvent(k writes.Kind, e history.Event, rec recordedChange, now *unstructured.Unstructured) (history.Event, *unstructured.Unstructured, bool, error) {
	res := k.Resource
	switch {
	case now == nil && e.Type == history.Added:
		after, err := decoded(res, e.Object)
		return e, after, true, err
	case now == nil, e.Type == history.Added:
		return e, now, false, nil // 404 for the writer, or its create refused
	}
	if e.Type == history.Deleted {
		gone := now.DeepCopy()
		gone.SetResourceVersion(e.RV())
		if len(now.GetFinalizers()) == 0 {
			ev, err := eventOf(writes.Deleted, gone, e.At)
			return withFrom(ev, e), nil, true, err
		}
		if now.GetDeletionTimestamp() != nil {
			return e, now, false, nil // already being deleted: no change
		}
		at := metav1.NewTime(s.start.Add(time.Duration(float64(e.At) / s.opts.pace.factor())))
		zero := int64(0)
		gone.SetDeletionTimestamp(&at)
		gone.SetDeletionGracePeriodSeconds(&zero)
		ev, err := eventOf(writes.Modified, gone, e.At)
		return withFrom(ev, e), gone, true, err
	}
	if rec.before == nil {
		return e, now, false, nil
	}
	before, err := decoded(res, rec.before)
	if err != nil {
		return e, now, false, err
	}
	after, err := decoded(res, rec.after)
	if err != nil {
		return e, now, false, err
	}
	after.SetResourceVersion(e.RV()) // served higher than recorded when writes came before it
	out, typ, err := writes.Rebase(k, before, after, now)
	if err != nil || typ == writes.None {
		return e, now, false, err
	}
	ev, err := eventOf(typ, out, e.At)
	if typ == writes.Deleted {
		return withFrom(ev, e), nil, true, err
	}
	return withFrom(ev, e), out, true, err
}

// withFrom is ev told as recorded where e was.
func withFrom(ev, e history.Event) history.Event {
	ev.From = e.From
	return ev
}

// decoded is o, an object of res, as a write reads it.
func decoded(res history.Resource, o *history.Object) (*unstructured.Unstructured, error) {
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON(o.WithKind(res.Kind, res.GroupVersion())); err != nil {
		return nil, err
	}
	return u, nil
}
