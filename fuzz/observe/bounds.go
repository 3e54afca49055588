package observe

import "time"

// The bounds a run is recorded under: the harness runs with them, and the
// invariants judge by them.

// StopGrace is how long, in virtual time, a stopped target has to end its
// goroutines. A goroutine waiting on a timer within it is not left over.
const StopGrace = time.Minute

// DefaultLiveBound is how long a target may take to converge, in virtual
// time after the last fault fired (or after the start when none did).
// It applies when harness.Spec.LiveBound does not say: it is
// Observation.LiveBound's default.
const DefaultLiveBound = 10 * time.Minute
