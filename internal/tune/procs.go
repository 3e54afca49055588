package tune

import (
	"os"
	"runtime"
)

// WorkerProcs gives a go test -fuzz worker one processor, unless GOMAXPROCS
// says how many. go test starts a worker a processor. A run hands off
// between its goroutines: the replay writes a frame, the client decodes
// it, a handler runs. With every processor in each worker, the workers'
// threads take the cores from each other: the kernel's switching was 12%
// of their CPU. It reports whether it set it.
func WorkerProcs() bool {
	if os.Getenv("GOMAXPROCS") != "" {
		return false
	}
	runtime.GOMAXPROCS(1)
	return true
}
