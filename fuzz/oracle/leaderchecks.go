package oracle

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

// The leader-election invariants judge a Leadership a target exposed
// (Probe.Expose); a run without one gives them nothing to judge. They
// rest on client-go v0.35.10 tools/leaderelection/leaderelection.go:
//
//   - tryAcquireOrRenew takes over a lease held by another only once
//     isLeaseValid is false: "le.observedTime.Add(time.Second *
//     time.Duration(le.getObservedRecord().LeaseDurationSeconds)).After(now)",
//     observedTime being when the candidate last saw the record change
//     (setObservedRecord, called when "!bytes.Equal(le.observedRawRecord,
//     oldLeaderElectionRawRecord)"); its Update carries the resourceVersion
//     it read (resourcelock/leaselock.go), so a record changed since is a
//     409.
//   - renew: "wait.Until(func() { err := wait.PollUntilContextTimeout(ctx,
//     le.config.RetryPeriod, le.config.RenewDeadline, true, ...)": the next
//     try comes RetryPeriod after a success, and tries go on for
//     RenewDeadline; then renew returns (after a release with
//     ReleaseOnCancel, whose requests have "context.WithTimeout(ctx,
//     le.config.RenewDeadline)") and Run's deferred OnStoppedLeading runs.
//
// Take one virtual clock (no skew), and a leader whose last renewal was
// answered at r. It stops by r + RetryPeriod + RenewDeadline, plus
// RenewDeadline to release. Another takes over no sooner than the
// replaced record was stored plus LeaseDuration. So with RetryPeriod +
// RenewDeadline < LeaseDuration, and answers taking no time, two leaders
// never overlap. The package doc says "This implementation does not
// guarantee that only one client is acting as a leader (a.k.a. fencing)".
// That is about clocks that skew and answers that take time. An answer
// that took d lets the old leader go on d past the new one's takeover.
// one-leader allows that much.

// Errors of the leader-election invariants, wrapped with detail.
var (
	// ErrTwoLeaders says two candidates led at once, or one took a lease
	// over before it expired.
	ErrTwoLeaders = errors.New("two leaders at once")
	// ErrLeaderStayed says a leader went on leading past its renew
	// deadline.
	ErrLeaderStayed = errors.New("leader did not step down")
	// ErrNoLeader says no candidate led long after the lease could have
	// been taken.
	ErrNoLeader = errors.New("no leader elected")
)

// leadershipOf returns the timeline o's target exposed, and when it ends:
// when the candidates' context was done, or the run's end.
func leadershipOf(o *observe.Observation) (*Leadership, time.Duration, error) {
	if o == nil {
		return nil, 0, fmt.Errorf("%w: nil observation", ErrNoObservation)
	}
	l, ok := o.Exposed.(*Leadership)
	if !ok || l == nil {
		return nil, 0, fmt.Errorf("%w: the target exposes no leader-election timeline (oracle.Leadership; the leader-election target does)", ErrNotJudged)
	}
	end, ok := l.Ended()
	if !ok {
		end = o.EndedAt
	}
	if at, ok := boundEndAt(o); ok && at < end {
		// from the bound's trip on, the run held every request until it
		// ended, a lease's renewal too. The bound's invariant judges that
		// run; the election is judged up to the trip.
		end = at
	}
	return l, end, nil
}

// releaseBound is how long a leader's release may take once it stopped
// renewing: RenewDeadline with ReleaseOnCancel, else nothing.
func (l *Leadership) releaseBound() time.Duration {
	if l.ReleaseOnCancel {
		return l.RenewDeadline
	}
	return 0
}

// checkOneLeader judges one-leader. No two spans of the timeline may
// overlap by more than the legal bound. No stored write may take the lease
// over from another holder within the replaced record's lease duration.
func checkOneLeader(o *observe.Observation) error {
	l, end, err := leadershipOf(o)
	if err != nil {
		return err
	}
	var errs []error
	ss := spans(l.Events())
	for i, a := range ss {
		for _, b := range ss[i+1:] {
			if b.who == a.who || b.start >= a.until(end) {
				continue
			}
			overlap := min(a.until(end), b.until(end)) - b.start
			allowed := time.Duration(0)
			last, ok := a.lastWrite(b.start)
			if ok {
				allowed = max(0, last.At-last.Sent+l.RetryPeriod+l.RenewDeadline+l.releaseBound()-l.LeaseDuration)
			}
			if overlap > allowed {
				errs = append(errs, fmt.Errorf("%w: candidate %s: leading at %v while %s leads since %v (%s's last renewal answered at %v; overlap %v, allowed %v)",
					ErrTwoLeaders, b.who, b.start, a.who, a.start, a.who, lastAt(last, ok), overlap, allowed))
			}
		}
	}
	errs = append(errs, takeovers(o, l)...)
	return errors.Join(errs...)
}

// lastAt renders a last write's time, or "never".
func lastAt(w LeaderEvent, ok bool) string {
	if !ok {
		return "never"
	}
	return w.At.String()
}

// leaseResource is the resource of the leases the candidates lock.
var leaseResource = history.Resource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Namespaced: true}

// leaseRecord is what a candidate compares of a stored lease. It is the
// LeaderElectionRecord that resourcelock.LeaseSpecToLeaderElectionRecord
// makes and json.Marshal writes. Its times are to the second
// (metav1.Time), so two records stored within one second may read the
// same.
type leaseRecord struct {
	holder               string
	durationSeconds      int
	acquire, renew       string // RFC 3339, seconds
	transitions          int
	strategy, preference string
}

// recordOf returns the record of a stored lease's JSON.
func recordOf(raw []byte) (leaseRecord, error) {
	var lease struct {
		Spec struct {
			HolderIdentity       *string    `json:"holderIdentity"`
			LeaseDurationSeconds *int       `json:"leaseDurationSeconds"`
			AcquireTime          *time.Time `json:"acquireTime"`
			RenewTime            *time.Time `json:"renewTime"`
			LeaseTransitions     *int       `json:"leaseTransitions"`
			Strategy             *string    `json:"strategy"`
			PreferredHolder      *string    `json:"preferredHolder"`
		} `json:"spec"`
	}
	if err := json.Unmarshal(raw, &lease); err != nil {
		return leaseRecord{}, err
	}
	s := lease.Spec
	second := func(t *time.Time) string {
		if t == nil {
			return ""
		}
		return t.UTC().Format(time.RFC3339)
	}
	deref := func(p *string) string {
		if p == nil {
			return ""
		}
		return *p
	}
	r := leaseRecord{holder: deref(s.HolderIdentity), acquire: second(s.AcquireTime), renew: second(s.RenewTime),
		strategy: deref(s.Strategy), preference: deref(s.PreferredHolder)}
	if s.LeaseDurationSeconds != nil {
		r.durationSeconds = *s.LeaseDurationSeconds
	}
	if s.LeaseTransitions != nil {
		r.transitions = *s.LeaseTransitions
	}
	return r, nil
}

// takeovers checks the lease's stored writes, across every instance of
// the target (a crashed one's too). Take a write that changes the holder
// from another, non-empty one. It must come at least the replaced
// record's leaseDurationSeconds after the first write of that record. A
// candidate may first have seen the record then: records the same to the
// second read the same.
func takeovers(o *observe.Observation, l *Leadership) []error {
	if o.Served == nil {
		return nil
	}
	log, ok := o.Served.Log(leaseResource)
	if !ok {
		return nil
	}
	// The lease's events in the served log are its stored writes, in the
	// order the replay answered them. No recorded change touches a lease
	// the cassette does not hold. So the k-th event is the k-th stored
	// write. They are paired by order, not by resourceVersion. A fault
	// that rewrites the history (recreate) moves every later
	// resourceVersion, a lease's too, after the write log took them down.
	var bodies [][]byte
	for _, e := range log.Events {
		if e.Object != nil && e.Object.Key() == l.Lease && e.Type != history.Deleted {
			bodies = append(bodies, e.Object.Raw)
		}
	}
	var errs []error
	var cur leaseRecord
	var since time.Duration
	have := false
	k := 0
	for _, w := range o.Writes {
		if w.Resource.ID() != leaseResource.ID() || w.Key != l.Lease || !w.Stored() || w.DryRun || w.Event == history.Deleted {
			continue
		}
		if k >= len(bodies) {
			break
		}
		body := bodies[k]
		k++
		r, err := recordOf(body)
		if err != nil {
			errs = append(errs, fmt.Errorf("%w: lease %s at write %d: %w", ErrTwoLeaders, l.Lease, k, err))
			continue
		}
		if have && r == cur {
			continue
		}
		if have && cur.holder != "" && r.holder != cur.holder && r.holder != "" {
			if expiry := since + time.Duration(cur.durationSeconds)*time.Second; w.At < expiry {
				errs = append(errs, fmt.Errorf("%w: lease %s: %s took it over at %v from %s, whose record was stored at %v, within its lease duration (%ds: not before %v)",
					ErrTwoLeaders, l.Lease, r.holder, w.At, cur.holder, since, cur.durationSeconds, expiry))
			}
		}
		cur, since, have = r, w.At, true
	}
	return errs
}

// stepDownBound is how long after its last renewal a leader may still
// lead: RetryPeriod (renew's wait.Until) + RenewDeadline (its poll) + the
// release's RenewDeadline with ReleaseOnCancel.
func (l *Leadership) stepDownBound() time.Duration {
	return l.RetryPeriod + l.RenewDeadline + l.releaseBound()
}

// checkLeaderStepsDown judges leader-steps-down: while a candidate leads,
// no gap between its renewals (from its acquisition to the end of its
// span) is longer than stepDownBound.
func checkLeaderStepsDown(o *observe.Observation) error {
	l, end, err := leadershipOf(o)
	if err != nil {
		return err
	}
	bound := l.stepDownBound()
	var errs []error
	for _, s := range spans(l.Events()) {
		last, ok := s.lastWrite(s.start)
		if !ok {
			errs = append(errs, fmt.Errorf("%w: candidate %s: leading since %v with no lease write answered before", ErrLeaderStayed, s.who, s.start))
			continue
		}
		stop := s.until(end)
		for _, w := range s.writes {
			if w.At <= last.At {
				continue
			}
			if w.At > stop {
				break
			}
			if w.At-last.At > bound {
				break // reported below, at the renewal that came late
			}
			last = w
		}
		if stop-last.At > bound {
			errs = append(errs, fmt.Errorf("%w: candidate %s: leading until %v, its last renewal answered at %v (deadline %v: RetryPeriod %v + RenewDeadline %v%s)",
				ErrLeaderStayed, s.who, stopText(s, stop), last.At, last.At+bound, l.RetryPeriod, l.RenewDeadline, releaseText(l)))
		}
	}
	return errors.Join(errs...)
}

// stopText renders when s stopped leading, by the end of the timeline.
func stopText(s leaderSpan, stop time.Duration) string {
	if s.stop < 0 {
		return fmt.Sprintf("%v (the end, not stopped)", stop)
	}
	return stop.String()
}

// releaseText is the release's part of a deadline's text.
func releaseText(l *Leadership) string {
	if l.ReleaseOnCancel {
		return fmt.Sprintf(" + release %v", l.RenewDeadline)
	}
	return ""
}

// electBound is how long after a point with no leader some candidate
// leads, if every lease request is answered from then on. Each candidate
// tries within RetryPeriod·(1+JitterFactor) (acquire's wait.JitterUntil).
// So it has read the record by then. It finds it expired LeaseDuration
// later, and tries again within RetryPeriod·(1+JitterFactor).
func (l *Leadership) electBound() time.Duration {
	return l.LeaseDuration + time.Duration(2*(1+l.JitterFactor)*float64(l.RetryPeriod))
}

// checkLeaderElected judges leader-elected. It starts a clock at the
// start, at each leader's stop, and at each lease request that failed.
// A 409 does not count: a conflict is another candidate's write. A candidate
// must lead within electBound of it. A request failing again meanwhile,
// or the timeline's end, excuses it.
func checkLeaderElected(o *observe.Observation) error {
	l, end, err := leadershipOf(o)
	if err != nil {
		return err
	}
	evs := l.Events()
	ss := spans(evs)
	var failures []time.Duration
	for _, e := range evs {
		if e.Kind == LeaseFailed && !e.Conflict {
			failures = append(failures, e.At)
		}
	}
	froms := append([]time.Duration{l.Start}, failures...)
	for _, s := range ss {
		if s.stop >= 0 {
			froms = append(froms, s.stop)
		}
	}
	bound := l.electBound()
	judged := false
	for _, from := range froms {
		due := from + bound
		if due >= end || failsWithin(failures, from, due) {
			continue
		}
		judged = true
		if leadsWithin(ss, from, due, end) {
			continue
		}
		return fmt.Errorf("%w: no candidate led from %v to %v, every lease request answered (LeaseDuration %v + 2·RetryPeriod %v·(1+%v))",
			ErrNoLeader, from, due, l.LeaseDuration, l.RetryPeriod, l.JitterFactor)
	}
	if !judged {
		return fmt.Errorf("%w: the election's timeline ends at %v, before %v of answered lease requests after its start, a leader's stop or a failed request", ErrNotJudged, end, bound)
	}
	return nil
}

// leadsWithin reports whether a span of ss is open at some time of
// [from, due].
func leadsWithin(ss []leaderSpan, from, due, end time.Duration) bool {
	for _, s := range ss {
		if s.start <= due && s.until(end) > from {
			return true
		}
	}
	return false
}

// failsWithin reports whether a failure comes in (from, due].
func failsWithin(failures []time.Duration, from, due time.Duration) bool {
	for _, f := range failures {
		if f > from && f <= due {
			return true
		}
	}
	return false
}

// The leader-election invariants, in report order (Invariants lists
// them).
var (
	oneLeaderInvariant = Invariant{Name: "one-leader", Scope: Along, Check: checkOneLeader,
		Doc: "no two candidates of a leader election (oracle.Leadership, exposed) lead at once, from OnStartedLeading to OnStoppedLeading, beyond how long the old leader's last renewal took to be answered; and no stored write of the lease takes it over from another holder before that record's leaseDurationSeconds have passed since it was stored (every instance's writes, a crashed one's too)",
		Guarantee: `leaderelection.go, LeaderElectionConfig.LeaseDuration: "A client needs to wait a full LeaseDuration without observing a change to ` +
			`the record before it can attempt to take over"; RenewDeadline: "the duration that the acting master will retry refreshing leadership ` +
			`before giving up"; NewLeaderElector: "leaseDuration must be greater than renewDeadline"; package doc: "This implementation does not ` +
			`guarantee that only one client is acting as a leader (a.k.a. fencing)" — under one clock with no skew, a takeover waits LeaseDuration ` +
			`and the old leader gives up by RetryPeriod + RenewDeadline after its last renewal, so only an answer's latency can make them overlap`}
	leaderStepsDownInvariant = Invariant{Name: "leader-steps-down", Scope: Along, Check: checkLeaderStepsDown,
		Doc: "a candidate of a leader election (oracle.Leadership, exposed) that leads stops (OnStoppedLeading) within RetryPeriod + RenewDeadline (+ RenewDeadline to release, with ReleaseOnCancel) of its last lease write answered without an error",
		Guarantee: `leaderelection.go, LeaderElectionConfig.RenewDeadline: "the duration that the acting master will retry refreshing leadership ` +
			`before giving up"; renew: "wait.Until(func() { err := wait.PollUntilContextTimeout(ctx, le.config.RetryPeriod, le.config.RenewDeadline, ` +
			`true, ...)", which "returns immediately when tryAcquireOrRenew fails"; Run: "defer le.config.Callbacks.OnStoppedLeading()"`}
	leaderElectedInvariant = Invariant{Name: "leader-elected", Scope: Along, Check: checkLeaderElected,
		Doc: "a leader election (oracle.Leadership, exposed) makes progress: from its start, a leader's stop or a lease request failed other than by a 409, if every lease request is answered for LeaseDuration + 2·RetryPeriod·(1+JitterFactor), some candidate leads by then (not judged on a run shorter than that: most end once quiet for a second)",
		Guarantee: `leaderelection.go, LeaderElectionConfig.LeaseDuration: "the duration that non-leader candidates will wait to force acquire ` +
			`leadership"; acquire: "wait.JitterUntil(func() { ... succeeded = le.tryAcquireOrRenew(ctx) ... }, le.config.RetryPeriod, JitterFactor, ` +
			`true, ctx.Done())"; tryAcquireOrRenew: a record whose lease is no longer valid by the candidate's clock is taken over`}
)

// boundEndAt is when a behaviour bound ended o's run (BoundEnd, or a
// HotLoop an older harness set alone); ok false when none did.
func boundEndAt(o *observe.Observation) (at time.Duration, ok bool) {
	switch {
	case o.BoundEnd != nil:
		return o.BoundEnd.At, true
	case o.HotLoop != nil:
		return o.HotLoop.At, true
	}
	return 0, false
}
