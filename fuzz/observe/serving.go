package observe

import (
	"time"

	"github.com/lwreplay/lwreplay/history"
)

// Serving is one answer of the replay's that carried objects of a
// resource to the target: a LIST page or a watch frame.
type Serving struct {
	// At is when the replay sent it (virtual time since the run started).
	At time.Duration
	// Resource is the resource served.
	Resource history.Resource
	// Type is a watch frame's type (ADDED, MODIFIED, DELETED, BOOKMARK,
	// ERROR); "" for a LIST page.
	Type history.EventType
	// RV is the resourceVersion a frame carries, or the one a page lists
	// the state at.
	RV string
	// Items are a LIST page's objects (nil for a frame), shared with the
	// replay's history.
	Items []*history.Object
}
