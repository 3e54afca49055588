//go:build !unix

package harness

import "time"

// processCPU returns -1: the platform does not say, and spin bounds are in
// wall time alone.
func processCPU() time.Duration { return -1 }
