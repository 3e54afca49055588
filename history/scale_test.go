package history_test

import (
	"runtime"
	"testing"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// scaleHistory builds the history of a generated cassette of configmaps
// and pods: objects in the initial state, then events changes.
func scaleHistory(tb testing.TB, objects, events int) *history.History {
	tb.Helper()
	f, err := synth.Generate(synth.GenerateOptions{Objects: objects, Events: events, Seed: 1, PageSize: 500, MaxMemory: 16 << 30})
	if err != nil {
		tb.Fatalf("Generate: got error %v, want none", err)
	}
	f.Path = "scale.yaml"
	h, err := history.Build(f)
	if err != nil {
		tb.Fatalf("Build: got error %v, want none", err)
	}
	return h
}

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkHistoryHeap reports the live heap a built history holds per
// event (the cassette it was built from dropped): 20k objects, 200k events.
func BenchmarkHistoryHeap(b *testing.B) {
	const objects, events = 20_000, 200_000
	for range b.N {
		before := heapInUse()
		h := scaleHistory(b, objects, events)
		after := heapInUse()
		b.ReportMetric(float64(after-before)/events, "heap-B/event")
		runtime.KeepAlive(h)
	}
}
