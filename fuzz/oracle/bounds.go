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
