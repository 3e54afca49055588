package faults

// The faults' names, one constant per Registry entry: the name a plan,
// the CLI, a subtest and a report use. Code that keys on a fault (the
// replayer's effects) uses these rather than strings.
const (
	// DropBookmark names the drop-bookmark fault.
	DropBookmark = "drop-bookmark"
	// DropAllBookmarks names the drop-all-bookmarks fault.
	DropAllBookmarks = "drop-all-bookmarks"
	// CloseWatch names the close-watch fault.
	CloseWatch = "close-watch"
	// ExpireWatch names the expire-watch fault.
	ExpireWatch = "expire-watch"
	// CloseAfterInitialEvents names the close-after-initial-events fault.
	CloseAfterInitialEvents = "close-after-initial-events"
	// ExpireContinue names the expire-continue fault.
	ExpireContinue = "expire-continue"
	// TooLargeRV names the too-large-rv fault.
	TooLargeRV = "too-large-rv"
	// StaleList names the stale-list fault.
	StaleList = "stale-list"
	// ConsistentReadWait names the consistent-read-wait fault.
	ConsistentReadWait = "consistent-read-wait"
	// HTTPError names the http-error fault.
	HTTPError = "http-error"
	// Throttle names the throttle fault.
	Throttle = "throttle"
	// Reset names the reset fault.
	Reset = "reset"
	// Delay names the delay fault.
	Delay = "delay"
	// WatchlistUnsupported names the watchlist-unsupported fault.
	WatchlistUnsupported = "watchlist-unsupported"
	// InitialEventsIgnored names the initial-events-ignored fault.
	InitialEventsIgnored = "initial-events-ignored"
	// OpaqueRV names the opaque-rv fault.
	OpaqueRV = "opaque-rv"
	// Recreate names the recreate fault.
	Recreate = "recreate"
	// CrashAfterWrite names the crash-after-write fault.
	CrashAfterWrite = "crash-after-write"
	// GracefulRestart names the graceful-restart fault.
	GracefulRestart = "graceful-restart"
	// APIServerRestart names the apiserver-restart fault.
	APIServerRestart = "apiserver-restart"
	// Reorder names the reorder fault.
	Reorder = "reorder"
	// Duplicate names the duplicate fault.
	Duplicate = "duplicate"
	// DropEvent names the drop-event fault.
	DropEvent = "drop-event"
	// RVRegress names the rv-regress fault.
	RVRegress = "rv-regress"
	// BookmarkRegress names the bookmark-regress fault.
	BookmarkRegress = "bookmark-regress"
	// GarbleFrame names the garble-frame fault.
	GarbleFrame = "garble-frame"
	// MissingInitialEventsEnd names the missing-initial-events-end fault.
	MissingInitialEventsEnd = "missing-initial-events-end"
)
