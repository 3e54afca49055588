package replayer

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/lwreplay/lwreplay/history"
)

// readMode is how a LIST or GET picks the state it answers.
type readMode int

const (
	// readConsistent is resourceVersion "": the newest state.
	readConsistent readMode = iota
	// readAny is resourceVersion "0": any state (the newest here).
	readAny
	// readNotOlderThan is a state at or after the resourceVersion.
	readNotOlderThan
	// readExact is exactly the state at the resourceVersion.
	readExact
)

// listReadMode classifies a LIST without a continue token as
// kube-apiserver's watch cache does (delegator.ShouldDelegateList): an RV
// with no match is NotOlderThan, except with a limit, when it is exact
// (the "legacy exact match").
func listReadMode(q history.RequestInfo) readMode {
	switch {
	case q.ResourceVersion == "":
		return readConsistent
	case q.ResourceVersion == "0":
		return readAny
	case q.ResourceVersionMatch == string(metav1.ResourceVersionMatchExact):
		return readExact
	case q.ResourceVersionMatch == string(metav1.ResourceVersionMatchNotOlderThan):
		return readNotOlderThan
	case q.Limit > 0:
		return readExact
	}
	return readNotOlderThan
}

// snapshot is the state an answer shows: a position of a log and the
// resourceVersion the answer reports for it.
type snapshot struct {
	pos int
	rv  string
}

// newestPosition is the state a consistent read (and an RV "0" read) sees:
// the server's head, not the end of the log, so that a fresh client lists
// the initial state and then watches every event; but never a state older
// than the compaction point, which no watch could start from.
func (s *Server) newestPosition(l *history.Log) int {
	pos := s.head(l)
	if c, err := l.Position(s.watchFloor(l)); err == nil && c > pos {
		pos = c
	}
	return pos
}

// pickSnapshot chooses the state a read in mode m at resourceVersion rv
// answers; on failure it returns the Status to answer instead. This is the
// one place that maps a request's resourceVersion to a position. Like
// kube-apiserver it waits (up to its too-large wait) for an RV the server
// has not reached yet before answering 504. A served snapshot advances the
// server's head.
func (s *Server) pickSnapshot(r *http.Request, l *history.Log, m readMode, rv string) (snapshot, *metav1.Status) {
	var snap snapshot
	switch m {
	case readConsistent:
		snap.pos = s.newestPosition(l)
	case readAny:
		snap.pos = s.newestPosition(l)
	default:
		pos, err := l.Position(rv)
		switch {
		case errors.Is(err, history.ErrUnknownRV):
			st := invalidRV(l, rv)
			return snapshot{}, &st
		case errors.Is(err, history.ErrTooLarge):
			s.sleepCtx(r.Context(), s.opts.tooLargeWait)
			st := tooLarge(rv, l.RVAt(s.available(l)))
			return snapshot{}, &st
		case err != nil || s.compacted(l, rv):
			if m == readExact {
				st := expired(listTooOldMessage)
				return snapshot{}, &st
			}
			pos = 0 // any newer state is not older than rv
		}
		if pos > s.available(l) && !s.waitAvailable(r.Context(), l, pos) {
			st := tooLarge(rv, l.RVAt(s.available(l)))
			return snapshot{}, &st
		}
		snap.pos, snap.rv = pos, rv
		if m == readNotOlderThan {
			if n := s.newestPosition(l); n > pos {
				snap.pos = n
			}
			if at := l.RVAt(snap.pos); !l.Order().Less(at, rv) {
				snap.rv = at
			}
		}
	}
	if snap.rv == "" {
		snap.rv = l.RVAt(snap.pos)
	}
	s.advance(l, snap.pos)
	return snap, nil
}

// invalidRV is kube-apiserver's 400 for a resourceVersion it cannot parse.
func invalidRV(l *history.Log, rv string) metav1.Status {
	detail := "not a resourceVersion of this history"
	if _, err := strconv.ParseUint(rv, 10, 64); err != nil && l.Order().Numeric() {
		detail = err.Error()
	}
	return badRequest("invalid resource version: " + field.Invalid(field.NewPath("resourceVersion"), rv, detail).Error())
}

// waitAvailable waits until position pos of l may be served under the
// pace, at most the server's too-large wait; it reports whether it may.
func (s *Server) waitAvailable(ctx context.Context, l *history.Log, pos int) bool {
	start := time.Now()
	for pos > s.available(l) {
		left := s.opts.tooLargeWait - time.Since(start)
		if left <= 0 {
			return false
		}
		d := left
		if n := s.nextAt(l, pos-1); n > 0 && n < d {
			d = n
		}
		if !s.sleepCtx(ctx, d) {
			return false
		}
	}
	return true
}

// sleepCtx sleeps for d unless ctx ends first; it reports whether the
// whole sleep passed.
func (s *Server) sleepCtx(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return ctx.Err() == nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}
