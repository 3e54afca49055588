package replayer

import (
	"cmp"
	"maps"
	"slices"
	"sort"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/writes"
)

// The recorded history is the other actors. Under a paced replay, a
// target's write can come before recorded events of the object it wrote.
// Each of those is another writer's change. It is served as that writer's
// write onto the object as the target left it (writes.Rebase). Rebase
// applies the difference between its recorded versions. So the target's
// changes of other fields survive, and the later writer wins a field both
// wrote. kube-apiserver's answer to such a write applies:
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
// the served history (Server.recorded). So a later write rebases it again
// from what was recorded, not from what it was served as.

// recordedChange is an event's change as recorded: its type, the object
// before it (nil for a create) and after. The type is kept because a
// rebased event may be served as another: a recorded delete of an object
// with the target's finalizers is served as a MODIFIED that marks it.
type recordedChange struct {
	typ           history.EventType
	before, after *history.Object
}

// otherActors is what the replay keeps of the recorded changes it serves
// as other writers' writes, by Resource.ID. It keeps the recorded change
// of each event it rebased, by served RV. It keeps the recorded events it
// serves not, by key, in RV order. (Their writer was refused: the object
// it changed was gone.) It serves those if the target's writes make their
// writer's write possible before their time.
type otherActors struct {
	recorded map[history.Resource]map[string]recordedChange
	pending  map[history.Resource]map[string][]history.Event
}

// newOtherActors returns an empty otherActors.
func newOtherActors() *otherActors {
	return &otherActors{recorded: map[history.Resource]map[string]recordedChange{}, pending: map[history.Resource]map[string][]history.Event{}}
}

// of returns the recorded change of e, an event of res's log: the one
// kept when it was rebased, else e's own.
func (a *otherActors) of(res history.Resource, e history.Event) recordedChange {
	if c, ok := a.recorded[res.ID()][e.RV()]; ok {
		return c
	}
	return recordedChange{typ: e.Type, before: e.Prev, after: e.Object}
}

// moved is a copy of a with its RVs moved as moveRV moves the served ones.
func (a *otherActors) moved(moveRV func(string) string) (*otherActors, error) {
	out := newOtherActors()
	for id, by := range a.recorded {
		m := make(map[string]recordedChange, len(by))
		for rv, c := range by {
			m[moveRV(rv)] = c
		}
		out.recorded[id] = m
	}
	for id, by := range a.pending {
		m := make(map[string][]history.Event, len(by))
		for key, evs := range by {
			for _, e := range evs {
				o, err := history.WithResourceVersion(e.Object, moveRV(e.RV()))
				if err != nil {
					return nil, err
				}
				e.Object = o
				m[key] = append(m[key], e)
			}
		}
		out.pending[id] = m
	}
	return out, nil
}

// rebaseLater serves recorded events as the other actors' writes onto
// what the target left. Those are the events of the keys of cur from
// position from of evs on. They include the pending ones of those keys
// newer than base whose recorded offset is after now (the paced clock).
// The map cur holds the object now by key, nil when deleted. The function
// returns the events to serve instead, in RV order. The receiver takes
// the recorded changes of the events it rebased and the events it serves
// not.
func (a *otherActors) rebaseLater(start time.Time, factor float64, now time.Duration, k writes.Kind, evs []history.Event, from int, base uint64, cur map[string]*unstructured.Unstructured) ([]history.Event, error) {
	res := k.Resource
	id := res.ID()
	later := map[string][]history.Event{} // the recorded events to come of each key of cur
	rest := make([]history.Event, 0, len(evs))
	rest = append(rest, evs[:from]...)
	for _, e := range evs[from:] {
		if _, ok := cur[e.Object.Key()]; ok {
			later[e.Object.Key()] = append(later[e.Object.Key()], e)
			continue
		}
		rest = append(rest, e)
	}
	for key := range cur {
		for _, e := range a.pending[id][key] {
			if rvNumber(e.RV()) > base && e.At > now {
				later[key] = append(later[key], e)
			}
		}
		delete(a.pending[id], key)
	}
	if len(later) == 0 {
		return evs, nil
	}
	if a.recorded[id] == nil {
		a.recorded[id] = map[string]recordedChange{}
	}
	if a.pending[id] == nil {
		a.pending[id] = map[string][]history.Event{}
	}
	for _, key := range slices.Sorted(maps.Keys(later)) {
		les := later[key]
		slices.SortStableFunc(les, func(x, y history.Event) int { return cmp.Compare(rvNumber(x.RV()), rvNumber(y.RV())) })
		obj := cur[key]
		for _, e := range les {
			rec := a.of(res, e)
			ne, next, keep, err := rebaseEvent(start, factor, k, e, rec, obj)
			if err != nil {
				return nil, err
			}
			a.recorded[id][e.RV()] = rec
			if !keep {
				a.pending[id][key] = append(a.pending[id][key], e)
				continue
			}
			obj = next
			rest = append(rest, ne)
		}
	}
	tail := rest[from:]
	slices.SortStableFunc(tail, func(x, y history.Event) int { return cmp.Compare(rvNumber(x.RV()), rvNumber(y.RV())) })
	return rest, nil
}

// rvNumber is rv as an integer (0 when it is none: a numeric history's RVs
// all are).
func rvNumber(rv string) uint64 {
	v, _ := strconv.ParseUint(rv, 10, 64)
	return v
}

// withoutOwnRebased rebases h, a history from which history.WithoutOwn
// took a recorded client's own changes (Log.Own). Some recorded changes
// came after an own change of their object. It serves them as the other
// actors' writes onto the object without it. A change of an object only
// the client's own write made is not served until the replayed client
// makes that write. (Its writer's write would be refused.) One made on
// top of the client's change is the difference from it. What it served
// not and what it rebased go into a.
func withoutOwnRebased(h *history.History, a *otherActors, start time.Time, factor float64) (*history.History, error) {
	out := h
	for i, l := range h.Logs {
		if len(l.Own) == 0 || !l.Order().Numeric() {
			continue
		}
		k := kindOf(l.Resource)
		first := map[string]string{} // the RV of each key's first own change
		for _, e := range l.Own {
			if _, ok := first[e.Object.Key()]; !ok {
				first[e.Object.Key()] = e.RV()
			}
		}
		before, err := statesBefore(l, first)
		if err != nil {
			return nil, err
		}
		evs := l.Events
		for _, key := range slices.Sorted(maps.Keys(first)) {
			rv := rvNumber(first[key])
			from := sort.Search(len(evs), func(j int) bool { return rvNumber(evs[j].RV()) > rv })
			if evs, err = a.rebaseLater(start, factor, -1, k, evs, from, rv, map[string]*unstructured.Unstructured{key: before[key]}); err != nil {
				return nil, err
			}
		}
		if out, err = history.ReplaceEvents(out, out.Logs[i].Resource, evs); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// rebaseEvent is e, recorded as rec, served onto now (nil: the target
// deleted the object). It returns the event to serve (keep false: none)
// and the object after it. A deletionTimestamp it sets is the server's
// start plus e's offset at the pace's factor.
func rebaseEvent(start time.Time, factor float64, k writes.Kind, e history.Event, rec recordedChange, now *unstructured.Unstructured) (history.Event, *unstructured.Unstructured, bool, error) {
	res := k.Resource
	typ := e.Type // as recorded: a delete served as a MODIFIED (it marked the object) is still a delete
	if rec.typ != "" {
		typ = rec.typ
	}
	switch {
	case now == nil && typ == history.Added:
		after, err := decoded(res, e.Object)
		return e, after, true, err
	case now == nil, typ == history.Added:
		return e, now, false, nil // 404 for the writer, or its create refused
	}
	if typ == history.Deleted {
		gone := now.DeepCopy()
		gone.SetResourceVersion(e.RV())
		if len(now.GetFinalizers()) == 0 {
			ev, err := eventOf(writes.Deleted, gone, e.At, e.From.File)
			return withFrom(ev, e), nil, true, err
		}
		if now.GetDeletionTimestamp() != nil {
			return e, now, false, nil // already being deleted: no change
		}
		at := metav1.NewTime(start.Add(time.Duration(float64(e.At) / factor)))
		zero := int64(0)
		gone.SetDeletionTimestamp(&at)
		gone.SetDeletionGracePeriodSeconds(&zero)
		ev, err := eventOf(writes.Modified, gone, e.At, e.From.File)
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
	out, wtyp, err := writes.Rebase(k, before, after, now)
	if err != nil || wtyp == writes.None {
		return e, now, false, err
	}
	ev, err := eventOf(wtyp, out, e.At, e.From.File)
	if wtyp == writes.Deleted {
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

// statesBefore returns, of each key of at, its object in l just before
// the RV at names, in one walk of l. Absent means it did not exist then.
func statesBefore(l *history.Log, at map[string]string) (map[string]*unstructured.Unstructured, error) {
	state := make(map[string]*history.Object, len(l.Initial))
	for _, o := range l.Initial {
		state[o.Key()] = o
	}
	keys := slices.SortedFunc(maps.Keys(at), func(x, y string) int { return cmp.Compare(rvNumber(at[x]), rvNumber(at[y])) })
	out := make(map[string]*unstructured.Unstructured, len(at))
	j := 0
	for _, key := range keys {
		rv := rvNumber(at[key])
		for ; j < len(l.Events) && rvNumber(l.Events[j].RV()) < rv; j++ {
			e := l.Events[j]
			if e.Type == history.Deleted {
				delete(state, e.Object.Key())
			} else {
				state[e.Object.Key()] = e.Object
			}
		}
		if o, ok := state[key]; ok {
			u, err := decoded(l.Resource, o)
			if err != nil {
				return nil, err
			}
			out[key] = u
		} else {
			out[key] = nil
		}
	}
	return out, nil
}

// hasOwn says some log of h holds a recorded client's own changes left
// out of its events (history.WithoutOwn).
func hasOwn(h *history.History) bool {
	return slices.ContainsFunc(h.Logs, func(l *history.Log) bool { return len(l.Own) > 0 })
}

// holds says a holds recorded changes it served not.
func (a *otherActors) holds() bool {
	for _, by := range a.pending {
		if len(by) > 0 {
			return true
		}
	}
	return false
}
