package oracle

import (
	"sort"
	"sync"
	"time"
)

// Leadership is the timeline of a leader election a target runs
// (client-go's tools/leaderelection). It holds what each candidate's
// callbacks were told and each request of its lock. Times are virtual,
// since the run started. A target hands it to Probe.Expose for one-leader,
// leader-steps-down and leader-elected, which judge it with the timings
// the candidates were given. It is safe for concurrent use.
type Leadership struct {
	// Lease is the namespace/name key of the coordination.k8s.io/v1 Lease
	// the candidates elect a leader on.
	Lease string
	// LeaseDuration, RenewDeadline and RetryPeriod are the candidates'
	// LeaderElectionConfig timings.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// JitterFactor is client-go's leaderelection.JitterFactor: a
	// candidate that does not lead tries again after RetryPeriod times
	// [1, 1+JitterFactor).
	JitterFactor float64
	// ReleaseOnCancel is the candidates' LeaderElectionConfig field: a
	// leader that stops writes its lease released first.
	ReleaseOnCancel bool
	// Start is when the candidates started.
	Start time.Duration

	mu     sync.Mutex
	events []LeaderEvent
	end    time.Duration // when the candidates' context was done; -1 before
}

// LeaderEventKind says what a LeaderEvent records.
type LeaderEventKind string

// The kinds of LeaderEvent.
const (
	// LeaderStarted is a call of the candidate's OnStartedLeading.
	LeaderStarted LeaderEventKind = "started"
	// LeaderStopped is a call of the candidate's OnStoppedLeading
	// (client-go calls it whenever Run returns, leader or not).
	LeaderStopped LeaderEventKind = "stopped"
	// LeaseRead is a Get of the lease its lock answered (found or not).
	LeaseRead LeaderEventKind = "read"
	// LeaseWritten is a Create or Update of the lease, holding it, that
	// the lock answered without an error: a renewal, or an acquisition.
	LeaseWritten LeaderEventKind = "written"
	// LeaseReleased is an Update answered without an error that wrote
	// the lease with no holder (ReleaseOnCancel).
	LeaseReleased LeaderEventKind = "released"
	// LeaseFailed is a request of the lock answered with an error.
	LeaseFailed LeaderEventKind = "failed"
)

// LeaderEvent is one event of a Leadership.
type LeaderEvent struct {
	// At is when it happened: for a request, when its answer came.
	At time.Duration
	// Sent is, for a request, when it was sent.
	Sent time.Duration
	// Candidate is the identity of the candidate (its lock's Identity).
	Candidate string
	// Kind is what happened.
	Kind LeaderEventKind
	// Verb is, for a request, get, create or update.
	Verb string
	// Err is, for a failed request, its error.
	Err string
	// Conflict says a failed request was answered 409 (Conflict or
	// AlreadyExists). Another candidate's write came first. That is the
	// election at work, not a server that does not answer.
	Conflict bool
}

// NewLeadership returns an empty timeline of the election on the lease of
// key lease, its candidates started at start with these timings.
func NewLeadership(lease string, start, leaseDuration, renewDeadline, retryPeriod time.Duration, jitter float64, releaseOnCancel bool) *Leadership {
	return &Leadership{Lease: lease, Start: start, LeaseDuration: leaseDuration, RenewDeadline: renewDeadline, RetryPeriod: retryPeriod,
		JitterFactor: jitter, ReleaseOnCancel: releaseOnCancel, end: -1}
}

// Record appends e.
func (l *Leadership) Record(e LeaderEvent) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.events = append(l.events, e)
}

// End records that the candidates' context was done at at (the run
// stopped the target); the first call counts.
func (l *Leadership) End(at time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.end < 0 {
		l.end = at
	}
}

// Ended returns when the candidates' context was done, and whether it was.
func (l *Leadership) Ended() (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.end, l.end >= 0
}

// Events returns the events recorded, ordered by At (stable).
func (l *Leadership) Events() []LeaderEvent {
	l.mu.Lock()
	out := append([]LeaderEvent(nil), l.events...)
	l.mu.Unlock()
	sort.SliceStable(out, func(i, j int) bool { return out[i].At < out[j].At })
	return out
}

// leaderSpan is one candidate's leadership: from its OnStartedLeading to
// its OnStoppedLeading (stop -1: not called by the end of the timeline).
type leaderSpan struct {
	who         string
	start, stop time.Duration
	// writes are the candidate's lease writes answered without an error
	// (LeaseWritten), in order
	writes []LeaderEvent
}

// until returns when s stopped, or end when it had not by then. The end
// is the candidates' context done, or the request bound's trip. Past it,
// a leader's Run returns once its renewal in flight has. Nothing is
// judged there.
func (s leaderSpan) until(end time.Duration) time.Duration {
	if s.stop < 0 || s.stop > end {
		return end
	}
	return s.stop
}

// lastWrite returns the last of s's writes answered at or before t, and
// whether there is one.
func (s leaderSpan) lastWrite(t time.Duration) (LeaderEvent, bool) {
	var out LeaderEvent
	ok := false
	for _, w := range s.writes {
		if w.At > t {
			break
		}
		out, ok = w, true
	}
	return out, ok
}

// spans returns each candidate's leadership in evs, ordered by start.
// The client-go Run calls OnStartedLeading once at most, so a candidate
// leads once at most. A second start, which no LeaderElector makes, opens
// a span of its own.
func spans(evs []LeaderEvent) []leaderSpan {
	var out []leaderSpan
	open := map[string]int{} // candidate -> index in out of its open span
	writes := map[string][]LeaderEvent{}
	for _, e := range evs {
		switch e.Kind {
		case LeaseWritten:
			writes[e.Candidate] = append(writes[e.Candidate], e)
		case LeaderStarted:
			open[e.Candidate] = len(out)
			out = append(out, leaderSpan{who: e.Candidate, start: e.At, stop: -1})
		case LeaderStopped:
			if i, ok := open[e.Candidate]; ok {
				out[i].stop = e.At
				delete(open, e.Candidate)
			}
		}
	}
	for i := range out {
		out[i].writes = writes[out[i].who]
	}
	return out
}
