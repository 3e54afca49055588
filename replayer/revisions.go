package replayer

import (
	"sort"
	"strconv"
)

// revisions is a run's one resourceVersion order once its target writes:
// the recorded resourceVersions (a numeric history's, one counter across
// resources, as etcd's revision) and the writes' between them. A write is
// placed after the newest recorded resourceVersion served when it is
// made; every recorded resourceVersion after it is served one higher, so
// that a write's RV is an integer, larger than every RV served before it
// and smaller than every one served after. No resourceVersion a client was
// given ever changes: a write is only placed after what was served.
//
// A write costs O(1) and a translation O(log w) for w writes; with no
// write every RV is served as recorded.
type revisions struct {
	// after holds, per write in order, the recorded resourceVersion it was
	// placed after; nondecreasing, as what was served only grows.
	after []uint64
}

// served returns the resourceVersion recorded RV r is served as: r plus
// the writes placed before it.
func (v *revisions) served(r uint64) uint64 {
	return r + uint64(v.placedBefore(r))
}

// placedBefore counts the writes placed after a recorded RV below r.
func (v *revisions) placedBefore(r uint64) int {
	return sort.Search(len(v.after), func(i int) bool { return v.after[i] >= r })
}

// write places a write after recorded RV r (or after the last write's
// place, if r is older: what was served only grows) and returns the RV it
// is served at.
func (v *revisions) write(r uint64) uint64 {
	if n := len(v.after); n > 0 && r < v.after[n-1] {
		r = v.after[n-1]
	}
	v.after = append(v.after, r)
	return v.writeRV(len(v.after) - 1)
}

// writeRV is the RV write i is served at: its place, plus itself and
// every write before it (each placed at or before it).
func (v *revisions) writeRV(i int) uint64 {
	return v.after[i] + uint64(i) + 1
}

// recorded returns what served RV s is: the recorded RV it translates to
// (write -1), or the write it is (write ≥ 0, r its place); ok is false
// for an RV the order has never served and cannot place — larger than
// every write's and between none: a recorded RV is then s minus every
// write.
func (v *revisions) recorded(s uint64) (r uint64, write int, ok bool) {
	// a write's RV?
	if i := sort.Search(len(v.after), func(i int) bool { return v.writeRV(i) >= s }); i < len(v.after) && v.writeRV(i) == s {
		return v.after[i], i, true
	}
	// a recorded RV r with served(r) == s: served is strictly increasing
	// in r, and s-len(after) ≤ r ≤ s
	lo := s - min(s, uint64(len(v.after)))
	k := sort.Search(int(s-lo)+1, func(k int) bool { return v.served(lo+uint64(k)) >= s })
	if r = lo + uint64(k); r <= s && v.served(r) == s {
		return r, -1, true
	}
	return 0, -1, false
}

// servedText and recordedText are served and recorded on RV text; an RV
// that is no integer is served as it is (an opaque history takes no
// writes between its RVs yet).
func (v *revisions) servedText(rv string) string {
	if len(v.after) == 0 {
		return rv
	}
	n, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return rv
	}
	return strconv.FormatUint(v.served(n), 10)
}
