//go:build !unix

package scale

import (
	"os"
	"time"
)

// rusageMeasured says whether maxRSS and cpuTime measure here.
const rusageMeasured = false

// maxRSS is not measured here: it returns 0.
func maxRSS(*os.ProcessState) int64 { return 0 }

// cpuTime is not measured here: it returns 0.
func cpuTime() time.Duration { return 0 }
