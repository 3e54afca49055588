package testutil

import "runtime"

// LiveHeap returns the bytes of live heap after a collection: the
// difference of two calls is what a step kept.
func LiveHeap() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}
