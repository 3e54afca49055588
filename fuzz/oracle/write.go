package oracle

import (
	"github.com/lwreplay/lwreplay/history"
)

// Write is history.WriteAnswer: one write of the target's as the replay
// answered it.
//
// Deprecated: use history.WriteAnswer (fuzz.Write in a fuzz test).
type Write = history.WriteAnswer
