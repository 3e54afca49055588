package harness

import "time"

// DefaultWatchdog is how long a run lasts, in virtual time, when no fault
// fires late. It is longer than client-go's longest watch timeout (10 min)
// and a relist's backoff. A run ends sooner once all of these hold:
//   - the replay is exhausted;
//   - the plan can act no more (no delay holds a frame back);
//   - the target has synced and its store holds the truth's final state;
//   - it has sent no request for a second (quietEnd), and its actors wrote
//     nothing for actorQuietEnd.
//
// A run goes on past the watchdog until the live bound has passed since the
// last fault fired. But it never goes past the watchdog plus twice the live
// bound. So a fault that fires by the watchdog plus the bound is always
// judged (see Observation.Unsettled). A target with a Target.RetryBound
// goes on, too, at most the bound past that end: until just past the retry
// it says is due, or the bound past its last write. A retry it holds back
// is made before its end state is judged.
const DefaultWatchdog = 15 * time.Minute

// quietEnd is how long, in virtual time, a target must have sent no
// request before its run may end early. A controller that writes starts
// once its informers have synced (cache.WaitForCacheSync polls every
// 100 ms). So a store that equals the truth at the sync is no sign that
// it is done.
const quietEnd = time.Second

// tick is how often, in virtual time, a run looks at the target's state
// while the target is busy.
const tick = 100 * time.Millisecond

// maxTick is the longest a run goes, in virtual time, without looking at
// the target's state, once nothing has changed for a while.
const maxTick = 30 * time.Second

// runEnd is when a run stops looking (see DefaultWatchdog): the watchdog
// dog, or the live bound after the last fault (lastFault; -1: none), at
// most twice the bound past dog; then, for a target with a retry bound
// (retry), until retryAt, when it may retry work that failed (-1: none),
// at most the bound past that end.
func runEnd(dog, lastFault, live, retryAt, retry time.Duration) time.Duration {
	e := dog
	if lastFault >= 0 {
		e = min(max(dog, lastFault+live), dog+2*live)
	}
	if retry > 0 && retryAt >= 0 {
		e = max(e, min(retryAt, e+retry))
	}
	return e
}

// retrySlack is how long past a target's due retry its run goes on: the
// retry's own writes and what they set off come within it.
const retrySlack = 10 * time.Second
