package history_test

import (
	"fmt"
	"strconv"
	"testing"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// BenchmarkAppendEvents measures one AppendEvents of an ADDED at the end
// of a generated log of n objects. Each op appends to the history the
// last one made, as a replay's writes do. For comparison it measures one
// ReplaceEvents doing the same. The first stays flat as n grows; the
// second grows with it.
func BenchmarkAppendEvents(b *testing.B) {
	for _, n := range []int{500, 5000, 50000} {
		h0 := testutil.SynthHistory(b, n, 0)
		r := h0.Logs[0].Resource
		ns := h0.Logs[0].Initial[0].Namespace
		objects := func(b *testing.B) []*history.Object {
			v, _ := strconv.ParseUint(h0.Logs[0].LastRV(), 10, 64)
			out := make([]*history.Object, b.N)
			for i := range out {
				o, _, _, err := history.ParseObject(fmt.Appendf(nil, `{"metadata":{"name":"w-%d","namespace":%q,"resourceVersion":"%d"},"data":{"k":"v"}}`, i, ns, v+1+uint64(i)))
				if err != nil {
					b.Fatalf("ParseObject: got error %v, want none", err)
				}
				out[i] = o
			}
			return out
		}
		b.Run(fmt.Sprintf("append/objects=%d", n), func(b *testing.B) {
			objs := objects(b)
			h := h0
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				var err error
				if h, err = history.AppendEvents(h, r, history.Event{Type: history.Added, Object: objs[i]}); err != nil {
					b.Fatalf("AppendEvents: got error %v, want none", err)
				}
			}
		})
		b.Run(fmt.Sprintf("replace/objects=%d", n), func(b *testing.B) {
			objs := objects(b)
			h := h0
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				l, _ := h.Log(r)
				evs := append(append([]history.Event(nil), l.Events...), history.Event{Type: history.Added, Object: objs[i]})
				var err error
				if h, err = history.ReplaceEvents(h, r, evs); err != nil {
					b.Fatalf("ReplaceEvents: got error %v, want none", err)
				}
			}
		})
	}
}

// BenchmarkObjectAt measures a keyed lookup at the end of a generated log
// of n objects and as many events (its key index built before).
func BenchmarkObjectAt(b *testing.B) {
	for _, n := range []int{500, 5000, 50000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			l := testutil.SynthHistory(b, n, n).Logs[0]
			state := l.StateAt(l.End())
			l.ObjectAt(state[0].Key(), l.End())
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				o := state[i%len(state)]
				if got, ok := l.ObjectAt(o.Key(), l.End()); !ok || got != o {
					b.Fatalf("ObjectAt(%s): got %v %v, want %v", o.Key(), got, ok, o)
				}
			}
		})
	}
}
