package replayer

import (
	"context"
	"errors"
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
// kube-apiserver's watch cache does (delegator.ShouldDelegateList). An RV
// with no match is NotOlderThan. With a limit, it is exact (the "legacy
// exact match").
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

// pickSnapshot chooses the state a read in mode m at resourceVersion rv
// answers. On failure it returns the Status to answer instead. This is
// the one place that maps a request's resourceVersion to a position. Like
// kube-apiserver it waits (up to wait) for an RV the server has not
// reached yet before answering 504. A served snapshot advances the head.
func (st *store) pickSnapshot(ctx context.Context, l *history.Log, m readMode, rv string, wait time.Duration) (snapshot, *metav1.Status) {
	var snap snapshot
	switch m {
	case readConsistent:
		snap.pos = st.newestPosition(l)
	case readAny:
		snap.pos = st.newestPosition(l)
	default:
		pos, err := l.Position(rv)
		switch {
		case errors.Is(err, history.ErrUnknownRV):
			a := invalidRV(l, rv)
			return snapshot{}, &a
		case errors.Is(err, history.ErrTooLarge):
			sleepCtx(ctx, wait)
			a := tooLarge(rv, l.RVAt(st.available(l)))
			return snapshot{}, &a
		case err != nil || st.compacted(l, rv):
			if m == readExact {
				a := expired(listTooOldMessage)
				return snapshot{}, &a
			}
			pos = 0 // any newer state is not older than rv
		}
		if pos > st.available(l) && !st.waitAvailable(ctx, l, pos, wait) {
			a := tooLarge(rv, l.RVAt(st.available(l)))
			return snapshot{}, &a
		}
		snap.pos, snap.rv = pos, rv
		if m == readNotOlderThan {
			if n := st.newestPosition(l); n > pos {
				snap.pos = n
			}
			if at := st.happenedRV(l, snap.pos); !l.Order().Less(at, rv) {
				snap.rv = at
			}
		}
	}
	if snap.rv == "" {
		snap.rv = st.happenedRV(l, snap.pos)
	}
	st.show(l, snap.pos)
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
// pace, at most wait. It reports whether it may.
func (st *store) waitAvailable(ctx context.Context, l *history.Log, pos int, wait time.Duration) bool {
	start := time.Now()
	for pos > st.available(l) {
		left := wait - time.Since(start)
		if left <= 0 {
			return false
		}
		d := left
		if n := st.nextAt(l, pos-1); n > 0 && n < d {
			d = n
		}
		if !sleepCtx(ctx, d) {
			return false
		}
	}
	return true
}

// sleepCtx sleeps for d unless ctx ends first; it reports whether the
// whole sleep passed.
func sleepCtx(ctx context.Context, d time.Duration) bool {
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

// continueSnapshot picks the snapshot a continue token resumes: exactly its
// resourceVersion, or the newest state for a consistent token. A token
// older than the compaction point is answered 410 with a consistent token
// for the rest of the list, as kube-apiserver does.
func (st *store) continueSnapshot(ctx context.Context, l *history.Log, tok continueToken, wait time.Duration) (snapshot, *metav1.Status) {
	if tok.consistent {
		return st.pickSnapshot(ctx, l, readConsistent, "", wait)
	}
	if !l.Order().Known(tok.rv) {
		a := badRequest("invalid continue token: " + errInvalidContinue.Error() +
			": incorrect encoded start resourceVersion (version " + continueVersion + ")")
		return snapshot{}, &a
	}
	if st.compacted(l, tok.rv) {
		a := expired(continueTooOldMsg)
		a.ListMeta.Continue = continueToken{consistent: true, start: tok.start}.encode()
		return snapshot{}, &a
	}
	return st.pickSnapshot(ctx, l, readExact, tok.rv, wait)
}
