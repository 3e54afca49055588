//go:build !unix

package recorder

import "time"

// cpuTime is not measured here: it returns 0.
func cpuTime() time.Duration { return 0 }
