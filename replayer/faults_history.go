package replayer

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// errNoRecreate says a recreate fault found nothing to recreate.
var errNoRecreate = errors.New("nothing to recreate")

// opaqueWidth is the least number of base-36 digits of an opaque RV.
const opaqueWidth = 6

// opaqueRV makes the server serve opaque resourceVersions from the start
// (opaque-rv; see opaqueRVs).
func opaqueRV(c *pointCtx, d faults.Decision) (func() error, bool) {
	return func() error {
		c.s.fire(c.pt, d.Fault, c.s.opaqueRVs())
		return nil
	}, true
}

// opaqueRVs makes the server serve its history with every resourceVersion
// rewritten to "r" and the zero-padded base-36 rank of the RV (r000000,
// r000001, ...): the order is kept and no RV parses as an integer. The
// compaction point moves to the rewritten RV of its position. It returns
// a detail for the fired log: what it rewrote, or why it could not.
func (s *Server) opaqueRVs() (detail string) {
	rvs, err := s.h.RVs()
	var out *history.History
	names := make(map[string]string, len(rvs))
	if err == nil {
		width := max(opaqueWidth, len(strconv.FormatInt(int64(len(rvs)), 36)))
		for i, rv := range rvs {
			d := strconv.FormatInt(int64(i), 36)
			names[rv] = "r" + strings.Repeat("0", width-len(d)) + d
		}
		out, err = history.RewriteRVs(s.h, func(rv string) string { return names[rv] })
	}
	if err != nil {
		return "not applied: " + err.Error()
	}
	if c := s.opts.compaction; c != "" {
		// the newest RV of the history at or before the compaction point
		s.opts.compaction = ""
		for _, rv := range rvs {
			if cmp, ok := s.h.Order().Compare(rv, c); ok && cmp <= 0 {
				s.opts.compaction = names[rv]
			}
		}
	}
	s.fx.truth = out
	last := ""
	if len(rvs) > 0 {
		last = rvs[len(rvs)-1]
	}
	return fmt.Sprintf("%d rvs, newest %s as %s", len(rvs), last, names[last])
}

// canRecreate reports whether a recreate fault can act at a watch of res
// from rv: rv is a position of the served history, not compacted, whose
// state holds an object.
func (s *Server) canRecreate(res history.Resource, rv string) bool {
	l, ok := s.served().Log(res)
	if !ok {
		return false
	}
	p, err := l.Position(rv)
	return err == nil && !l.Order().Less(rv, s.watchFloor(l)) && len(l.StateAt(p)) > 0
}

// recreate makes the served history delete the k-th object (modulo their
// number, in key order) of the state of res at rv, and create it again
// under its name with a new UID, just after rv and before the next event;
// the object's later events carry the new UID. A numeric history makes
// room by moving every RV after rv up by 2; an opaque one gets new RVs
// placed in its order. The heads move so that a relist sees the result,
// and the compaction points a fault moved move with the RVs. It
// returns the RV of the new object and a detail for the fired log.
func (s *Server) recreate(res history.Resource, rv string, k int) (newRV, detail string, err error) {
	s.fx.mu.Lock()
	defer s.fx.mu.Unlock()
	truth := s.fx.truth
	l, ok := truth.Log(res)
	if !ok {
		return "", "", fmt.Errorf("%w: no log of %s", errNoRecreate, res)
	}
	p, err := l.Position(rv)
	if err != nil {
		return "", "", err
	}
	state := l.StateAt(p)
	if len(state) == 0 {
		return "", "", fmt.Errorf("%w: no object at rv %s", errNoRecreate, rv)
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
			return "", "", err
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
		return "", "", err
	}
	born, err := history.WithUID(obj, uid)
	if err == nil {
		born, err = history.WithResourceVersion(born, rv2)
	}
	if err != nil {
		return "", "", err
	}
	evs := make([]history.Event, 0, len(l.Events)+2)
	evs = append(evs, l.Events[:p]...)
	at := l.Events[max(p-1, 0)].At
	if p == 0 && len(l.Events) == 0 {
		at = 0
	}
	evs = append(evs,
		history.Event{Type: history.Deleted, Object: gone, At: at, From: history.Location{Event: -1}},
		history.Event{Type: history.Added, Object: born, At: at, From: history.Location{Event: -1}})
	same := true // events of the recreated object
	for _, e := range l.Events[p:] {
		if same && e.Object.Key() == obj.Key() {
			if e.Object, err = history.WithUID(e.Object, uid); err != nil {
				return "", "", err
			}
			same = e.Type != history.Deleted
		}
		evs = append(evs, e)
	}
	next, err := history.ReplaceEvents(work, res, evs)
	if err != nil {
		return "", "", err
	}
	s.mu.Lock()
	for i, ol := range truth.Logs {
		h := s.heads[ol]
		if ol.Resource.ID() == res.ID() {
			if h > p {
				h += 2
			}
			h = max(h, p+2)
		}
		s.heads[next.Logs[i]] = max(s.heads[next.Logs[i]], h)
	}
	for id, f := range s.floors {
		s.floors[id] = moveUp(f)
	}
	s.mu.Unlock()
	s.fx.truth = next
	return rv2, fmt.Sprintf("%s deleted at rv %s, created at rv %s with uid %s", obj.Key(), rv1, rv2, uid), nil
}

// freshRV returns base with a suffix ".n" (".n.n", ...) that order does
// not know yet.
func freshRV(order *history.Order, base string, n int) string {
	rv := base
	for {
		rv += "." + strconv.Itoa(n)
		if !order.Known(rv) {
			return rv
		}
	}
}

// newUID derives a UID for an object created again from its old UID and
// its new RV, shaped like a version-5 UUID.
func newUID(old, rv string) string {
	sum := sha256.Sum256([]byte(old + "/" + rv))
	b := sum[:16]
	b[6] = b[6]&0x0f | 0x50
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
