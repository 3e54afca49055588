package replayer

import "github.com/lwreplay/lwreplay/history"

// Served is one answer of the server's that carried a resource's objects
// to a client: a LIST page or a watch frame (see Hooks.OnServed).
type Served struct {
	// Resource is the resource served.
	Resource history.Resource
	// Type is a watch frame's type (ADDED, MODIFIED, DELETED, BOOKMARK,
	// ERROR); "" for a LIST page.
	Type history.EventType
	// RV is the resourceVersion a frame carries, or the one a page lists
	// the state at.
	RV string
	// Items are a LIST page's objects (nil for a frame); the server's
	// own, not to be changed.
	Items []*history.Object
}
