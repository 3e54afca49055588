package history_test

import (
	"runtime"
	"testing"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// BenchmarkHistoryHeap reports the live heap a built history holds per
// event (the cassette it was built from dropped): 20k objects, 200k events.
func BenchmarkHistoryHeap(b *testing.B) {
	const objects, events = 20_000, 200_000
	for range b.N {
		before := testutil.LiveHeap()
		h := testutil.SynthHistory(b, objects, events)
		after := testutil.LiveHeap()
		b.ReportMetric(float64(after-before)/events, "heap-B/event")
		runtime.KeepAlive(h)
	}
}

// scaleLog returns the pods log of a generated history.
func scaleLog(tb testing.TB, objects, events int) *history.Log {
	tb.Helper()
	h := testutil.SynthHistory(tb, objects, events)
	l, ok := h.Log(history.Resource{Version: "v1", Resource: "pods"})
	if !ok {
		tb.Fatalf("Log pods: got none, want one")
	}
	return l
}

// BenchmarkStateAtPaged is LISTs paged by 500, as client-go's reflector
// pages them, of the pods of a generated history (10k objects, 100k events).
// Per op, it makes one LIST (StateAt called once a page). Its position moves
// on by a prime number of events each op, wrapping around the log.
func BenchmarkStateAtPaged(b *testing.B) {
	l := scaleLog(b, 20_000, 200_000)
	pages := len(l.StateAt(l.End()))/500 + 1
	pos := 0
	b.ResetTimer()
	for range b.N {
		pos = (pos + 7919) % (l.End() + 1)
		for range pages {
			if len(l.StateAt(pos)) == 0 {
				b.Fatal("StateAt: got no objects, want some")
			}
		}
	}
	b.ReportMetric(float64(pages), "calls/op")
}
