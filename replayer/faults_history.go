package replayer

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/weakcache"
)

// errNoRecreate says a recreate fault found nothing to recreate.
var errNoRecreate = errors.New("nothing to recreate")

// opaqueWidth is the least number of base-36 digits of an opaque RV.
const opaqueWidth = 6

// opaqueRV makes the server serve opaque resourceVersions from the start
// (opaque-rv; see opaqueRVs).
func opaqueRV(c *pointCtx, d faults.Decision) (func() error, bool) {
	return func() error {
		c.s.fx.fire(c.pt, d.Fault, opaqueRVs(c.s.store))
		return nil
	}, true
}

// opaqueRVs makes st serve its history with every resourceVersion
// rewritten: "r" and the zero-padded base-36 rank of the RV (r000000,
// r000001, ...). The order is kept and no RV parses as an integer. The
// compaction option moves to the rewritten RV of its position. It
// returns a detail for the fired log: what it rewrote, or why it could
// not. It runs before any request.
func opaqueRVs(st *store) (detail string) {
	h := st.history()
	o := opaqueMemo.Get(h, opaqueOf)
	if o.err != nil {
		return "not applied: " + o.err.Error()
	}
	compaction := st.compactionRV()
	if c := compaction; c != "" {
		// the newest RV of the history at or before the compaction point
		compaction = ""
		for _, rv := range o.rvs {
			if cmp, ok := h.Order().Compare(rv, c); ok && cmp <= 0 {
				compaction = o.names[rv]
			}
		}
	}
	st.renamed(o.out, compaction)
	last := ""
	if len(o.rvs) > 0 {
		last = o.rvs[len(o.rvs)-1]
	}
	return fmt.Sprintf("%d rvs, newest %s as %s", len(o.rvs), last, o.names[last])
}

// opaqueRewrite is h with its RVs made opaque (opaqueRVs): its
// RVs in order, what each is renamed to, the rewritten history.
type opaqueRewrite struct {
	rvs   []string
	names map[string]string
	out   *history.History
	err   error
}

// opaqueOf rewrites h's RVs to opaque ones, as opaqueRVs serves them.
func opaqueOf(h *history.History) opaqueRewrite {
	rvs, err := h.RVs()
	if err != nil {
		return opaqueRewrite{err: err}
	}
	names := make(map[string]string, len(rvs))
	width := max(opaqueWidth, len(strconv.FormatInt(int64(len(rvs)), 36)))
	for i, rv := range rvs {
		d := strconv.FormatInt(int64(i), 36)
		names[rv] = "r" + strings.Repeat("0", width-len(d)) + d
	}
	out, err := history.RewriteRVs(h, func(rv string) string { return names[rv] })
	return opaqueRewrite{rvs: rvs, names: names, out: out, err: err}
}

// opaqueMemo holds each history's opaque rewrite: every run that draws
// opaque-rv rewrites the same history the same way.
var opaqueMemo weakcache.Cache[history.History, opaqueRewrite]

// canRecreate reports whether a recreate fault can act at a watch of res
// from rv in st. The RV must be a position of the served history, not
// compacted, whose state holds an object.
func canRecreate(st *store, res history.Resource, rv string) bool {
	l, ok := st.log(res)
	if !ok {
		return false
	}
	p, err := l.Position(rv)
	return err == nil && !l.Order().Less(rv, st.watchFloor(l)) && len(l.StateAt(p)) > 0
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
