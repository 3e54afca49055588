package observe

import "time"

// Listing is one complete list a target put together (a pager's pages):
// its resourceVersion and a digest of its keys and resourceVersions.
type Listing struct {
	// At is when the target reported it (virtual time since the start).
	At time.Duration
	// RV is the list's resourceVersion (its first page's).
	RV string
	// Keys is how many objects the list held.
	Keys int
	// Sum is the digest of its items, as StoreView.Sum.
	Sum uint64
}
