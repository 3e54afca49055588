package observe

import (
	"fmt"
	"time"
)

// Request is one request a target made, as a run saw it.
type Request struct {
	// At is when it was sent (virtual time since the run started).
	At time.Duration
	// Resource is what it asked for: "configmaps", "deployments.apps", or
	// the path of a request for no resource (discovery).
	Resource string
	// Verb is LIST, WATCH or WATCHLIST (a watch with initial events), the
	// method of a write (POST, PUT, PATCH, DELETE), or GET for anything
	// else.
	Verb string
	// RV is the resourceVersion asked for ("" when none).
	RV string
	// Continue says a LIST asked for a next page.
	Continue bool
	// Code is the HTTP status the replay answered with (0: no answer,
	// e.g. a request the run's bound held). A watch's 200 may carry an
	// ERROR event: the firings say so.
	Code int

	// Stack holds the program counters of the goroutine that sent it; the
	// oracle names the site from them. It is nil when the run did not keep
	// them.
	Stack []uintptr
}

// String renders the request as a report line does: "12.3s WATCHLIST
// configmaps rv=\"\"".
func (r Request) String() string {
	s := fmt.Sprintf("%v %s %s rv=%q", r.At.Round(time.Millisecond), r.Verb, r.Resource, r.RV)
	if r.Continue {
		s += " continue"
	}
	return s
}

// HotLoop is what a run saw of a target that crossed its request bound.
type HotLoop struct {
	// Why says which bound: "more than 1000 requests within 1s of
	// virtual time".
	Why string
	// At is when (virtual time since the start) the bound was crossed.
	At time.Duration
	// Stack is the stack of the goroutine whose request crossed it.
	Stack string
	// Answering, when not 0, is how many of the target's objects the replay's
	// garbage collector deleted within the sustained window. It is at least one
	// for every ten of its requests there. The target made them again, as
	// their owners' deletion had not reached its cache. no-hot-loop does not
	// judge such a rate. Answering is 0 for a burst.
	Answering int
}

// BoundEnd is the behaviour bound a run ended at: the first it saw
// broken.
type BoundEnd struct {
	// Invariant names the bound: no-hot-loop, no-write-storm or
	// no-conflict-loop.
	Invariant string
	// At is when (virtual time since the start) the bound was crossed.
	At time.Duration
}
