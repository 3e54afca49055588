package replayer

import (
	"errors"
	"fmt"
	"strconv"
	"sync"
	"time"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/weakcache"
)

// recreation is what a recreate fault makes of a history (see
// engine.recreate). It holds the history served next and the position of
// the watch's RV. It holds how the RVs of the history before were
// renamed, the new object's RV and the fired log's detail. Or it holds
// why it could not.
type recreation struct {
	next   *history.History
	p      int
	moveUp func(string) string
	rv2    string
	detail string
	err    error
}

// recreateKey says which recreation of a history: the resource, the RV a
// watch starts from, the object's index in its state there.
type recreateKey struct {
	res history.Resource
	rv  string
	k   int
}

// recreations are the recreations of one history made so far. Every run
// that draws the same recreate at the same RV makes the same one. And
// rewriting the history is the costly part of a run that does. Each is a
// copy of the history. They are kept while their objects (initial and
// events, summed) are at most maxRecreatedObjects.
type recreations struct {
	mu   sync.Mutex // guards kept and by
	size int        // the objects of a recreation: the history's
	kept int        // the objects of those kept
	by   map[recreateKey]recreation
}

// maxRecreatedObjects bounds the objects of the recreations kept of one
// history.
const maxRecreatedObjects = 1 << 16

// recreationsOf returns an empty memo for h.
func recreationsOf(h *history.History) *recreations {
	n := 0
	for _, l := range h.Logs {
		n += len(l.Initial) + len(l.Events) + 2
	}
	return &recreations{size: n, by: map[recreateKey]recreation{}}
}

// recreateMemo holds each history's recreations.
var recreateMemo weakcache.Cache[history.History, *recreations]

// get returns the recreation of the k-th object (modulo their number) of
// res's state at rv in truth, made once.
func (m *recreations) get(truth *history.History, res history.Resource, rv string, k int) recreation {
	if l, ok := truth.Log(res); ok {
		if p, err := l.Position(rv); err == nil {
			if n := len(l.StateAt(p)); n > 0 {
				k = max(k, 0) % n
			}
		}
	}
	key := recreateKey{res: res.ID(), rv: rv, k: k}
	m.mu.Lock()
	r, ok := m.by[key]
	m.mu.Unlock()
	if ok {
		return r
	}
	r = recreate(truth, res, rv, k)
	m.mu.Lock()
	defer m.mu.Unlock()
	if prev, ok := m.by[key]; ok {
		return prev
	}
	if m.kept+m.size <= maxRecreatedObjects {
		m.by[key] = r
		m.kept += m.size
	}
	return r
}

// recreate makes the recreation of the k-th object of res's state at rv
// in truth (see engine.recreate).
func recreate(truth *history.History, res history.Resource, rv string, k int) recreation {
	fail := func(err error) recreation { return recreation{err: err} }
	l, ok := truth.Log(res)
	if !ok {
		return fail(fmt.Errorf("%w: no log of %s", errNoRecreate, res))
	}
	p, err := l.Position(rv)
	if errors.Is(err, history.ErrTooLarge) && l.Order().Numeric() {
		p, err = l.End(), nil // served past res's last event (afterServed): the recreation comes last
	}
	if err != nil {
		return fail(err)
	}
	state := l.StateAt(p)
	if len(state) == 0 {
		return fail(fmt.Errorf("%w: no object at rv %s", errNoRecreate, rv))
	}
	obj := state[max(k, 0)%len(state)]
	base := l.RVAt(p)
	if l.Order().Less(base, rv) {
		base = rv
	}
	work := truth
	var rv1, rv2 string
	moveUp := func(r string) string { return r } // how an RV of truth is renamed
	if n, perr := strconv.ParseUint(base, 10, 64); l.Order().Numeric() && perr == nil {
		moveUp = func(r string) string {
			if v, err := strconv.ParseUint(r, 10, 64); err == nil && v > n {
				return strconv.FormatUint(v+2, 10)
			}
			return r
		}
		work, err = history.RewriteRVs(truth, moveUp)
		if err != nil {
			return fail(err)
		}
		rv1, rv2 = strconv.FormatUint(n+1, 10), strconv.FormatUint(n+2, 10)
		l, _ = work.Log(res)
	} else {
		rv1 = freshRV(l.Order(), base, 1)
		rv2 = freshRV(l.Order(), base, 2)
	}
	uid := newUID(obj.UID, rv2)
	gone, err := history.WithResourceVersion(obj, rv1)
	if err != nil {
		return fail(err)
	}
	born, err := withUIDOf(res, obj, uid, true)
	if err == nil {
		born, err = history.WithResourceVersion(born, rv2)
	}
	if err != nil {
		return fail(err)
	}
	evs := make([]history.Event, 0, len(l.Events)+2)
	evs = append(evs, l.Events[:p]...)
	var at time.Duration // the events' offset: the event before's (at the start, the first's)
	if len(l.Events) > 0 {
		at = l.Events[max(p-1, 0)].At
	}
	evs = append(evs,
		history.Event{Type: history.Deleted, Object: gone, At: at, From: history.Location{Event: -1}},
		history.Event{Type: history.Added, Object: born, At: at, From: history.Location{Event: -1}})
	same := true // events of the recreated object
	for _, e := range l.Events[p:] {
		if same && e.Object.Key() == obj.Key() {
			if e.Object, err = withUIDOf(res, e.Object, uid, false); err != nil {
				return fail(err)
			}
			same = e.Type != history.Deleted
		}
		evs = append(evs, e)
	}
	next, err := history.ReplaceEvents(work, res, evs)
	if err != nil {
		return fail(err)
	}
	detail := fmt.Sprintf("%s deleted at rv %s, created at rv %s with uid %s", obj.Key(), rv1, rv2, uid)
	return recreation{next: next, p: p, moveUp: moveUp, rv2: rv2, detail: detail}
}

// afterServed returns where in res's log a recreation asked for at rv
// goes: at rv, or at served (the newest resourceVersion any answer
// reached, "" for none) when that is newer. A recreation at rv moves the
// resourceVersions after it up; one an answer reached would then name
// another object than the one the target holds, as no apiserver's ever
// does. (A target that had written at rv 82 then sent 82 in every update,
// and each was answered 409 Conflict.)
func afterServed(truth *history.History, res history.Resource, rv, served string) string {
	l, ok := truth.Log(res)
	if !ok || served == "" || !l.Order().Numeric() || !l.Order().Less(rv, served) {
		return rv
	}
	return served
}

// recreate makes the served history delete the k-th object of the state
// of res at rv (modulo their number, in key order). It creates it again
// under its name with a new UID, just after rv and before the next event.
// rv is the watch's, or the newest resourceVersion served when that is
// newer (afterServed).
// The object's later events carry the new UID (a Job's generated
// selector and template labels too: withUIDOf). A numeric history makes
// room by moving every RV after rv up by 2. An opaque one gets new RVs
// placed in its order. The head moves so that a relist sees the result.
// The compaction points a fault moved move with the RVs. It returns the
// RV of the new object and a detail for the fired log.
func (e *engine) recreate(res history.Resource, rv string, k int) (newRV, detail string, err error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	truth := e.store.history()
	rv = afterServed(truth, res, rv, e.store.servedRV(truth))
	r := recreateMemo.Get(truth, recreationsOf).get(truth, res, rv, k)
	if r.err != nil {
		return "", "", r.err
	}
	e.store.recreated(r.next, res, r.p, r.moveUp)
	return r.rv2, r.detail, nil
}
