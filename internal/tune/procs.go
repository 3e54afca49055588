// Package tune sets the Go runtime for fuzzing: the collector's pace in
// lwreplay fuzz and go test -fuzz's workers, and a worker's processors.
package tune

import (
	"os"
	"runtime"
)

// Worker gives a go test -fuzz worker one processor, unless GOMAXPROCS
// says how many. go test starts a worker a processor (-parallel), and
// each runs one input at a time. A run's goroutines hand off to each
// other at every request, frame and event, in virtual time, so more
// processors in a worker add handoffs between threads, not work done.
// Worker reports whether it set it.
func Worker() bool {
	if os.Getenv("GOMAXPROCS") != "" {
		return false
	}
	runtime.GOMAXPROCS(1)
	return true
}
