// Package tune sets the Go runtime for fuzzing: the collector, in lwreplay
// fuzz and in go test -fuzz's workers alike, and a worker's processors.
package tune

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
)

// Garbage collector settings of a fuzz campaign. Its runs allocate much
// and keep little: a run's replay, target and observation are garbage
// once it is judged. So on recordings whose history is a small heap, the
// collector waits for the heap to grow by fuzzGCPercent, not Go's 100%. A
// run costs about a third less CPU, for a few hundred MB more memory.
const (
	fuzzGCPercent = 400
	smallLiveHeap = 256 << 20
)

// GC sets the collector for a fuzz campaign once its recordings are
// loaded, unless GOGC says how. It reports whether it set it.
func GC() bool {
	if os.Getenv("GOGC") != "" {
		return false
	}
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() <= smallLiveHeap {
		debug.SetGCPercent(fuzzGCPercent)
		return true
	}
	return false
}
