package harness

import (
	"sync/atomic"
	_ "unsafe" // go:linkname

	_ "k8s.io/apimachinery/pkg/util/wait" // jitterRand's package, initialized first
)

// client-go draws the jitter of every backoff (a Reflector's relists and
// rewatches, wait.JitterUntil) from apimachinery's wait.jitterRand. That
// is math/rand's process-wide Float64. Seeding that source (seedClientGo)
// makes one reflector's draws repeat. But two reflectors that back off at
// the same virtual instant draw in whatever order their goroutines run,
// and swap their backoffs. Under a fault that keeps firing, how many
// requests each makes then moves from run to run. So a run draws one
// jitter for all its backoffs, from its input: the same whatever the
// order. The apimachinery module keeps jitterRand a package variable "so
// it can be overridden to make unit tests deterministic".
// TestJitterIsTheRuns fails if a version stops reading it.

//go:linkname jitterRand k8s.io/apimachinery/pkg/util/wait.jitterRand
var jitterRand func() float64

// runJitter is the running run's jitter; nil until a run sets it (then
// jitterRand is apimachinery's own).
var runJitter atomic.Pointer[float64]

func init() {
	own := jitterRand
	jitterRand = func() float64 {
		if u := runJitter.Load(); u != nil {
			return *u
		}
		return own()
	}
}

// setJitter makes every backoff jitter client-go draws from now on the
// fraction u of its maximum (0 ≤ u < 1). That holds until the next run
// sets its own.
func setJitter(u float64) {
	runJitter.Store(&u)
}
