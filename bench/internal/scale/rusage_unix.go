//go:build unix

package scale

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// rusageMeasured says whether maxRSS and cpuTime measure here.
const rusageMeasured = true

// maxRSS returns the peak RSS in bytes of an exited process.
func maxRSS(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return ru.Maxrss // bytes there
	}
	return ru.Maxrss << 10 // KiB elsewhere
}

// cpuTime returns the CPU time (user and system) this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
