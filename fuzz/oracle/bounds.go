package oracle

import "time"

// The bounds of a run that the invariants judge by: the harness runs with
// them, and the invariants' messages name them.

// WatchCap is the longest a run's replay keeps a watch open (the harness
// serves every watch with it): client-go's shortest watch timeout (its
// Reflector asks for 5 to 10 minutes, drawn at random), so that when a
// watch ends, and which frames and decision points it carries, do not
// depend on that draw.
const WatchCap = 5 * time.Minute

// StopGrace is how long, in virtual time, a stopped target has to end its
// goroutines (a goroutine waiting on a timer within it is not left over).
const StopGrace = time.Minute
