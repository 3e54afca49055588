// Package serving says how the replay served a run. The harness serves a
// run with WatchCap. The judge (fuzz/oracle) and the driver (fuzz) read
// both WatchCap and the breaking faults that fired (FiredBreaking).
package serving

import "time"

// WatchCap is the longest a run's replay keeps a watch open.
// The harness serves every watch with it.
// It is client-go's shortest watch timeout: its Reflector asks for 5 to 10
// minutes, drawn at random. With the cap, when a watch ends does not depend
// on that draw, nor do the frames and decision points it carries.
const WatchCap = 5 * time.Minute
