package history

import (
	"container/heap"
	"fmt"
	"slices"
	"sort"
	"strconv"
)

// Order knows the order of one resource's resourceVersions (Log.Order), or
// of a whole history's (History.Order). When every RV the resource recorded
// is a decimal integer (as etcd's revisions are), RVs compare by value.
// kube-apiserver compares its own so. An RV never seen can still be placed.
// Otherwise they compare by what the recording proves of that resource (see
// the package doc). Then only RVs seen can be placed.
type Order struct {
	numeric bool
	// vals holds, when numeric, the values of the RVs seen, ascending and
	// distinct. ranked needs them: a merge with an opaque order. It is
	// nil in a merged order, which no merge reads. An RV's key is its
	// value, parsed when asked for, so a numeric order keeps no per-RV
	// map.
	vals []uint64
	// seq holds, when opaque, each RV seen and its place.
	seq map[string]int
}

// newOrder builds an Order from RVs in order of appearance.
func newOrder(appearance []string) *Order {
	vals := make([]uint64, 0, len(appearance))
	for _, rv := range appearance {
		n, ok := decimalRV(rv)
		if !ok {
			return opaqueOrder(appearance)
		}
		vals = append(vals, n)
	}
	slices.Sort(vals)
	return &Order{numeric: true, vals: slices.Clone(slices.Compact(vals))}
}

// decimalRV returns the value of rv when it is a decimal integer written
// without leading zeros.
func decimalRV(rv string) (uint64, bool) {
	if rv == "" || (rv[0] == '0' && rv != "0") {
		return 0, false
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	return n, err == nil
}

// opaqueOrder builds an order of RVs by their first appearance.
func opaqueOrder(appearance []string) *Order {
	o := &Order{seq: make(map[string]int, len(appearance))}
	for _, rv := range appearance {
		if _, ok := o.seq[rv]; !ok {
			o.seq[rv] = len(o.seq)
		}
	}
	return o
}

// Numeric reports whether RVs compare by integer value.
func (o *Order) Numeric() bool { return o.numeric }

// Known reports whether rv can be placed in this order.
func (o *Order) Known(rv string) bool {
	_, ok := o.key(rv)
	return ok
}

func (o *Order) key(rv string) (uint64, bool) {
	if o.numeric {
		n, err := strconv.ParseUint(rv, 10, 64)
		return n, err == nil
	}
	n, ok := o.seq[rv]
	return uint64(n), ok
}

// Compare returns -1, 0 or +1 as a is before, equal to or after b; ok is
// false when either cannot be placed.
func (o *Order) Compare(a, b string) (c int, ok bool) {
	ka, oka := o.key(a)
	kb, okb := o.key(b)
	if !oka || !okb {
		return 0, false
	}
	switch {
	case ka < kb:
		return -1, true
	case ka > kb:
		return 1, true
	}
	return 0, true
}

// Less reports whether a is before b; RVs that cannot be placed are never less.
func (o *Order) Less(a, b string) bool {
	c, ok := o.Compare(a, b)
	return ok && c < 0
}

func sortStrings(s []string) { sort.Strings(s) }

// ranked returns the RVs o knows, oldest first.
func (o *Order) ranked() []string {
	if o.numeric {
		out := make([]string, len(o.vals))
		for i, n := range o.vals {
			out[i] = strconv.FormatUint(n, 10) // as recorded: no leading zeros
		}
		return out
	}
	out := make([]string, len(o.seq))
	for rv, k := range o.seq {
		out[k] = rv
	}
	return out
}

// mergeOrders returns one order of every RV the logs know that agrees with
// each log's own. It is by value when every log's RVs are decimal.
// Otherwise it is a merge of the logs' orders. There, two RVs no log
// places relative to each other (two resources' RVs) come in the order of
// the logs, then of their place in their first log. The error says that
// the logs place an RV that two of them share in contradicting orders; the
// order returned then still holds every RV.
func mergeOrders(logs []*Log) (*Order, error) {
	numeric := true
	for _, l := range logs {
		numeric = numeric && l.order.numeric
	}
	if numeric {
		return &Order{numeric: true}, nil
	}
	chains := make([][]string, 0, len(logs))
	for _, l := range logs {
		chains = append(chains, l.order.ranked())
	}
	return mergeChains(chains)
}

// mergeChains merges chains of RVs, each oldest first, into one order
// (see mergeOrders).
func mergeChains(chains [][]string) (*Order, error) {
	type node struct {
		prio  [2]int // first chain, place in it
		succ  []string
		preds int
	}
	nodes := map[string]*node{}
	for ci, c := range chains {
		for k, rv := range c {
			n := nodes[rv]
			if n == nil {
				n = &node{prio: [2]int{ci, k}}
				nodes[rv] = n
			}
			if k > 0 {
				nodes[c[k-1]].succ = append(nodes[c[k-1]].succ, rv)
				n.preds++
			}
		}
	}
	less := func(a, b string) bool {
		pa, pb := nodes[a].prio, nodes[b].prio
		return pa[0] < pb[0] || (pa[0] == pb[0] && pa[1] < pb[1])
	}
	var ready rvHeap
	ready.less = less
	for rv, n := range nodes {
		if n.preds == 0 {
			heap.Push(&ready, rv)
		}
	}
	out := &Order{seq: make(map[string]int, len(nodes))}
	var err error
	for len(out.seq) < len(nodes) {
		if ready.Len() == 0 {
			// a cycle: the logs disagree; go on with the first RV left
			var rest []string
			for rv := range nodes {
				if _, done := out.seq[rv]; !done {
					rest = append(rest, rv)
				}
			}
			sort.Slice(rest, func(i, j int) bool { return less(rest[i], rest[j]) })
			if err == nil {
				err = fmt.Errorf("%w: resources order resourceVersion %s differently", ErrUnknownRV, rest[0])
			}
			nodes[rest[0]].preds = 0
			heap.Push(&ready, rest[0])
		}
		rv := heap.Pop(&ready).(string)
		if _, done := out.seq[rv]; done {
			continue
		}
		out.seq[rv] = len(out.seq)
		for _, s := range nodes[rv].succ {
			if nodes[s].preds--; nodes[s].preds == 0 {
				heap.Push(&ready, s)
			}
		}
	}
	return out, err
}

// rvHeap is a min-heap of RVs under less.
type rvHeap struct {
	rvs  []string
	less func(a, b string) bool
}

func (h rvHeap) Len() int           { return len(h.rvs) }
func (h rvHeap) Less(i, j int) bool { return h.less(h.rvs[i], h.rvs[j]) }
func (h rvHeap) Swap(i, j int)      { h.rvs[i], h.rvs[j] = h.rvs[j], h.rvs[i] }
func (h *rvHeap) Push(x any)        { h.rvs = append(h.rvs, x.(string)) }
func (h *rvHeap) Pop() any {
	x := h.rvs[len(h.rvs)-1]
	h.rvs = h.rvs[:len(h.rvs)-1]
	return x
}
