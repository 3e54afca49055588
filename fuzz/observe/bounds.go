package observe

import "time"

// The bounds a run is recorded under: the harness runs with them, and the
// invariants judge by them.

// StopGrace is how long, in virtual time, a stopped target has to end its
// goroutines (a goroutine waiting on a timer within it is not left over).
const StopGrace = time.Minute

// DefaultLiveBound is how long, in virtual time after the last fault fired
// (or after the start when none did), a target may take to converge when
// harness.Spec.LiveBound does not say: Observation.LiveBound's default.
const DefaultLiveBound = 10 * time.Minute
