package harness

import "time"

// stackReadGap paces the spin watcher's reads of a run's goroutines: after
// a read that took c, the next comes stackReadGap×c later at the soonest.
// So the watcher spends at most a tenth of its time reading.
const stackReadGap = 10

// stackReader reads a run's goroutines for the spin watcher, paced by what
// its last read cost. A read is one of the whole process's stacks
// (runtime.Stack, the world stopped). A go test -fuzz worker that has run
// for a while holds thousands of goroutines its runs left blocked (a
// target's leaks, given-up runs), and a read then takes tens of
// milliseconds. Unpaced, the watcher's looks (every 10 ms at a known busy
// loop) took the worker's time, and an input ran past go test's 10 s.
// Only the watcher's goroutine uses it.
type stackReader struct {
	// read returns the stacks of bubble id's goroutines; nil means
	// bubbleStacks (tests replace it).
	read func(id string) []string
	at   time.Time     // when the last read began
	cost time.Duration // what it took
}

// due reports whether a read may be made at now.
func (r *stackReader) due(now time.Time) bool {
	return r.at.IsZero() || now.Sub(r.at) >= stackReadGap*r.cost
}

// stacks reads bubble id's goroutines now, whether due or not, and notes
// what the read cost.
func (r *stackReader) stacks(id string) []string {
	read := r.read
	if read == nil {
		read = bubbleStacks
	}
	begun := time.Now()
	gs := read(id)
	r.at, r.cost = begun, time.Since(begun)
	return gs
}
