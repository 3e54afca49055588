package replayer

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer/internal/status"
)

// listPoint reaches the decision point of a valid LIST request and acts
// out the decision that fires there. It reports whether it answered the
// request. The page size the answer would have is limit.
func (s *Server) listPoint(w http.ResponseWriter, r *http.Request, q history.RequestInfo, l *history.Log, f filter, limit int64) bool {
	if s.fx == nil || !s.opts.faultsAt(r) {
		return false
	}
	pt := faults.Point{Kind: faults.ListPoint, Page: 1}
	var tok continueToken
	if q.Continue != "" {
		var err error
		if tok, err = decodeContinue(q.Continue); err != nil || (q.ResourceVersion != "" && q.ResourceVersion != "0") {
			return false // answered 400 as usual, not a point
		}
		pt.Page = continuePage(l, f, q.Namespace, tok, limit)
	}
	c := &pointCtx{s: s, pt: pt, w: w, r: r, q: q, l: l, filter: f, limit: limit, tok: tok, actor: byActor(r)}
	act, ok := s.fx.reach(c)
	return ok && errors.Is(act(), errAnswered)
}

// answerHTTPError answers a LIST or WATCH request with the HTTP error
// Status of the decision's code (http-error).
func answerHTTPError(c *pointCtx, d faults.Decision) (func() error, bool) {
	st, ok := httpError(d.Param("code"))
	if !ok {
		return nil, false
	}
	return func() error {
		c.s.fx.fire(c.pt, d.Fault, fmt.Sprint(st.Code))
		status.Write(c.w, st)
		return errAnswered
	}, true
}

// throttle rejects the request as kube-apiserver's priority and fairness
// filter does (throttle). It answers 429 Too Many Requests with a
// Retry-After header and a plain-text body, no Status (tooManyRequests in
// k8s.io/apiserver pkg/server/filters/priority-and-fairness.go).
func throttle(c *pointCtx, d faults.Decision) (func() error, bool) {
	secs := d.Param("after")
	if secs < 1 {
		return nil, false
	}
	return func() error {
		c.s.fx.fire(c.pt, d.Fault, fmt.Sprintf("429, Retry-After %d s", secs))
		c.w.Header().Set("Retry-After", strconv.Itoa(secs))
		http.Error(c.w, "Too many requests, please try again later.", http.StatusTooManyRequests)
		return errAnswered
	}, true
}

// expireContinue answers a LIST page asked for with a continue token 410
// Expired (expire-continue). The answer carries a token that goes on from
// the same key at the newest state. A first page or a consistent token
// cannot expire. The
// 410 is sticky: the token's resourceVersion and every older one stay
// expired (see compactThrough).
func expireContinue(c *pointCtx, d faults.Decision) (func() error, bool) {
	if c.q.Continue == "" || c.tok.consistent {
		return nil, false
	}
	return func() error {
		st := expired(continueTooOldMsg)
		st.ListMeta.Continue = continueToken{consistent: true, start: c.tok.start}.encode()
		c.s.fx.fire(c.pt, d.Fault, "rv "+c.tok.rv+compactedTo(c.s.store.compactThrough(c.l.Resource, c.tok.rv)))
		status.Write(c.w, st)
		return errAnswered
	}, true
}

// tooLargeRV answers a LIST 504 Timeout, ResourceVersionTooLarge, for the
// RV it asked for or, without one, the history's last (too-large-rv).
func tooLargeRV(c *pointCtx, d faults.Decision) (func() error, bool) {
	return func() error {
		want := c.q.ResourceVersion
		if want == "" || want == "0" || c.q.Continue != "" {
			want = c.l.LastRV()
		}
		c.s.fx.fire(c.pt, d.Fault, "rv "+want)
		status.Write(c.w, tooLarge(want, c.l.RVAt(c.s.store.newestPosition(c.l))))
		return errAnswered
	}, true
}

// staleList answers a LIST at resourceVersion "0" from an older state
// (stale-list; see stalePosition).
func staleList(c *pointCtx, d faults.Decision) (func() error, bool) {
	pos, ok := stalePosition(c.s.store, c.l, c.q, d.Param("back"))
	if !ok {
		return nil, false
	}
	return func() error {
		rv := c.l.RVAt(pos)
		c.s.fx.fire(c.pt, d.Fault, fmt.Sprintf("rv %s, %d events back", rv, c.s.store.newestPosition(c.l)-pos))
		c.s.answerList(c.w, c.r, c.l, rv, paginate(c.l.StateAt(pos), c.filter, c.q.Namespace, "", c.limit))
		return errAnswered
	}, true
}

// consistentReadWait holds a consistent LIST (resourceVersion "", no
// continue token) "ms" milliseconds (consistent-read-wait). So does a
// watch cache that catches up before it serves the read. Then the LIST is
// answered as usual, from the state the server has then. A server without a
// watch cache (WithoutWatchCache) reads etcd and has none to wait for.
func consistentReadWait(c *pointCtx, d faults.Decision) (func() error, bool) {
	if c.q.ResourceVersion != "" || c.q.Continue != "" || c.s.opts.noWatchCache {
		return nil, false
	}
	return func() error {
		ms := d.Param("ms")
		c.s.fx.fire(c.pt, d.Fault, fmt.Sprintf("%d ms", ms))
		if !sleepCtx(c.r.Context(), time.Duration(ms)*time.Millisecond) {
			return errAnswered // the client left: there is no one to answer
		}
		return nil
	}, true
}

// continuePage derives which page of its chain a continue token asks for.
// It counts the selected objects listed before its start key, in pages of
// limit, as the chain's earlier pages would have held them.
func continuePage(l *history.Log, f filter, ns string, tok continueToken, limit int64) int {
	if limit <= 0 {
		return 2
	}
	pos := l.End()
	if !tok.consistent {
		if p, err := l.Position(tok.rv); err == nil {
			pos = p
		}
	}
	before := int64(0)
	for _, o := range l.StateAt(pos) {
		if (ns == "" || o.Namespace == ns) && relativeKey(o, ns) < tok.start && f.match(o) {
			before++
		}
	}
	return max(2, int(before/limit)+1)
}

// stalePosition returns the position a stale-list fault serves a LIST at
// resourceVersion "0" from. It is back events before the newest position,
// not before the history's start. Its ok is false when that is no older
// than the newest position, or the LIST is not at "0". A lagging watch
// cache keeps its own window whatever etcd compacted. So neither the
// compaction point (WithCompaction) nor one a fault's 410 moved bounds
// it. After a 410, a LIST at "0" may still be served from before the
// client's own resourceVersion. That is kubernetes#59848's time travel,
// which client-go's reflector avoids by relisting at its last synced
// resourceVersion.
func stalePosition(st *store, l *history.Log, q history.RequestInfo, back int) (pos int, ok bool) {
	if q.ResourceVersion != "0" || q.Continue != "" || back <= 0 {
		return 0, false
	}
	newest := st.newestPosition(l)
	pos = max(newest-back, 0)
	return pos, pos < newest
}

// httpError is the Status an http-error fault answers with code: 429
// without Retry-After, 500, 503, or any other 4xx or 5xx as
// kube-apiserver words it. Its ok is false for a code that is no error.
func httpError(code int) (metav1.Status, bool) {
	switch code {
	case http.StatusTooManyRequests:
		return metav1.Status{
			Status: metav1.StatusFailure, Code: http.StatusTooManyRequests, Reason: metav1.StatusReasonTooManyRequests,
			Message: "Too many requests, please try again later.",
		}, true
	case http.StatusInternalServerError:
		return apierrors.NewInternalError(errors.New("etcdserver: request timed out")).ErrStatus, true
	case http.StatusServiceUnavailable:
		return apierrors.NewServiceUnavailable("the server is currently unable to handle the request").ErrStatus, true
	}
	if code < 400 || code > 599 {
		return metav1.Status{}, false
	}
	st := apierrors.NewGenericServerResponse(code, "", schema.GroupResource{}, "", "", 0, false).ErrStatus
	st.Details = nil
	return st, true
}
