package history

import (
	"sort"
	"strconv"
)

// Order knows the order of a history's resourceVersions. When every RV seen
// is a decimal integer (as etcd's revisions are) RVs compare by value, and an
// RV never seen can still be placed; otherwise they compare by order of first
// appearance in the cassette, and only RVs seen can be placed.
type Order struct {
	numeric bool
	seq     map[string]int
	nums    map[string]uint64
}

// newOrder builds an Order from RVs in order of appearance.
func newOrder(appearance []string) *Order {
	o := &Order{numeric: true, seq: map[string]int{}, nums: map[string]uint64{}}
	for _, rv := range appearance {
		if _, ok := o.seq[rv]; ok {
			continue
		}
		o.seq[rv] = len(o.seq)
		if n, err := strconv.ParseUint(rv, 10, 64); err == nil && rv != "" && (rv == "0" || rv[0] != '0') {
			o.nums[rv] = n
		} else {
			o.numeric = false
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
		if n, ok := o.nums[rv]; ok {
			return n, true
		}
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
