package faults

import (
	"fmt"
	"slices"
	"sync"
)

// choiceCodes gives every choice a fault byte can name its code for good:
// byte 0x80+k (0xC0+k held from its point on) is entry k, a fault and one
// value of each of its parameters, in ParseFault's form. The list only
// grows: a new fault or parameter value is appended, never inserted, and
// an entry is never moved or reused, so that a fuzz input saved once (a
// regression seed in testdata/fuzz, a report's input) means the same plan
// on every later lwreplay (see Decode for the bytes past the table's end).
// TestChoiceCodes holds it equal, as a set, to what the registry's faults
// and Values allow.
var choiceCodes = []string{
	"drop-bookmark",
	"drop-all-bookmarks",
	"close-watch:after=0",
	"close-watch:after=1",
	"close-watch:after=2",
	"close-watch:after=5",
	"expire-watch:after=0",
	"expire-watch:after=1",
	"expire-watch:after=3",
	"close-after-initial-events",
	"expire-continue",
	"too-large-rv",
	"stale-list:back=1",
	"stale-list:back=3",
	"stale-list:back=10",
	"http-error:code=429",
	"http-error:code=500",
	"http-error:code=503",
	"throttle:after=1",
	"throttle:after=4",
	"throttle:after=32",
	"reset",
	"delay:ms=100",
	"delay:ms=1000",
	"delay:ms=10000",
	"delay:ms=65000",
	"watchlist-unsupported",
	"initial-events-ignored",
	"opaque-rv",
	"recreate:object=0",
	"recreate:object=1",
	"recreate:object=7",
	"crash-after-write",
	"graceful-restart",
	"reorder",
	"duplicate",
	"drop-event",
	"rv-regress",
	"bookmark-regress",
	"garble-frame",
	"missing-initial-events-end",
	// appended after layout 1's first table
	"stale-list:back=5",
	"apiserver-restart:down=1",
	"apiserver-restart:down=5",
	"apiserver-restart:down=30",
	"consistent-read-wait:ms=100",
	"consistent-read-wait:ms=1000",
	"consistent-read-wait:ms=3000",
}

var (
	choiceOnce  sync.Once
	choiceTable []Decision
	choiceErr   error
)

// choices returns the decisions the fault bytes name, by code (see
// choiceCodes), each At 0 in canonical form; an entry that does not parse
// (TestChoiceCodes keeps there being none) is left out of the table and
// reported by choiceErr.
func choices() []Decision {
	choiceOnce.Do(func() {
		for i, c := range choiceCodes {
			d, err := ParseFault(c)
			if err != nil {
				choiceErr = fmt.Errorf("choice code %d (%q): %w", i, c, err)
				continue
			}
			d.At = 0
			choiceTable = append(choiceTable, d.Canonical())
		}
	})
	return slices.Clip(choiceTable)
}

// CanonicalBytes returns plan bytes b with each byte in its shortest form:
// a normal point as 0, choice k as 0x80+k or, held, 0xC0+k, k below the
// number of choices. Decode reads the result as it reads b; unlike b's
// bytes past the table's end, the result's keep their meaning when the
// table grows.
func CanonicalBytes(b []byte) []byte {
	n := len(choices())
	out := make([]byte, len(b))
	for i, c := range b {
		switch {
		case c < FirstFaultByte || n == 0:
			out[i] = 0
		case c < FirstPersistentByte:
			out[i] = FirstFaultByte + byte(int(c-FirstFaultByte)%n)
		default:
			out[i] = FirstPersistentByte + byte(int(c-FirstPersistentByte)%n)
		}
	}
	return out
}
