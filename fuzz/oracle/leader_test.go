package oracle

import (
	"errors"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/history"
)

// s is n seconds.
func s(n float64) time.Duration { return time.Duration(n * float64(time.Second)) }

// timeline is a Leadership of client-go's usual timings, ended at end,
// holding evs.
func timeline(end time.Duration, release bool, evs ...LeaderEvent) *Leadership {
	l := NewLeadership("kube-system/lock", 0, s(15), s(10), s(2), 1.2, release)
	for _, e := range evs {
		l.Record(e)
	}
	l.End(end)
	return l
}

// started is candidate who's acquisition at at: its lease write, then
// OnStartedLeading.
func started(who string, at time.Duration) []LeaderEvent {
	return []LeaderEvent{{At: at, Sent: at, Candidate: who, Kind: LeaseWritten, Verb: "update"}, {At: at, Candidate: who, Kind: LeaderStarted}}
}

// renewals are who's renewals every 2 s from from to to (included).
func renewals(who string, from, to time.Duration) []LeaderEvent {
	var out []LeaderEvent
	for at := from; at <= to; at += s(2) {
		out = append(out, LeaderEvent{At: at, Sent: at, Candidate: who, Kind: LeaseWritten, Verb: "update"})
	}
	return out
}

// failed are who's failed requests every 2 s from from to to.
func failed(who string, from, to time.Duration) []LeaderEvent {
	var out []LeaderEvent
	for at := from; at <= to; at += s(2) {
		out = append(out, LeaderEvent{At: at, Sent: at, Candidate: who, Kind: LeaseFailed, Verb: "update", Err: "connection refused"})
	}
	return out
}

// stopped is who's OnStoppedLeading at at.
func stopped(who string, at time.Duration) []LeaderEvent {
	return []LeaderEvent{{At: at, Candidate: who, Kind: LeaderStopped}}
}

// join concatenates event lists.
func join(lists ...[]LeaderEvent) []LeaderEvent {
	var out []LeaderEvent
	for _, l := range lists {
		out = append(out, l...)
	}
	return out
}

// leaseWrites is an observation whose served history holds the lease
// kube-system/lock. Each of holders writes it at the given times. The
// write log goes with it.
func leaseWrites(t *testing.T, writes ...struct {
	at     time.Duration
	holder string
}) *Observation {
	t.Helper()
	h, err := history.AddLog(&history.History{}, leaseResource, "1")
	if err != nil {
		t.Fatalf("AddLog: %v", err)
	}
	o := &Observation{Served: h, WritesLogged: true, EndedAt: s(120)}
	transitions := map[string]int{}
	for i, w := range writes {
		if _, ok := transitions[w.holder]; !ok {
			transitions[w.holder] = len(transitions)
		}
		rv := strconv.Itoa(i + 2)
		at := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC).Add(w.at).Format(time.RFC3339Nano)
		raw := fmt.Sprintf(`{"metadata":{"namespace":"kube-system","name":"lock","resourceVersion":%q},"spec":{"holderIdentity":%q,"leaseDurationSeconds":15,"acquireTime":%q,"renewTime":%q,"leaseTransitions":%d}}`,
			rv, w.holder, at, at, transitions[w.holder])
		obj, _, _, err := history.ParseObject([]byte(raw))
		if err != nil {
			t.Fatalf("ParseObject: %v", err)
		}
		typ := history.Modified
		if i == 0 {
			typ = history.Added
		}
		if o.Served, err = history.AppendEvents(o.Served, leaseResource, history.Event{Type: typ, Object: obj}); err != nil {
			t.Fatalf("AppendEvents: %v", err)
		}
		o.Writes = append(o.Writes, Write{At: w.at, Verb: "update", Resource: leaseResource, Key: "kube-system/lock", RVAfter: rv, Code: 200, Event: typ})
	}
	return o
}

func TestLeaderInvariants(t *testing.T) {
	t.Parallel()
	type write = struct {
		at     time.Duration
		holder string
	}
	tests := []struct {
		name      string
		invariant string
		obs       *Observation
		want      error // nil: holds
		notJudged bool
	}{
		{name: "one-leader - no timeline exposed - not judged - pass", invariant: "one-leader", obs: &Observation{}, notJudged: true},
		{name: "leader-steps-down - no timeline exposed - not judged - pass", invariant: "leader-steps-down", obs: &Observation{}, notJudged: true},
		{name: "leader-elected - no timeline exposed - not judged - pass", invariant: "leader-elected", obs: &Observation{}, notJudged: true},
		{name: "one-leader - a leads, renewing, b follows - pass", invariant: "one-leader",
			obs: &Observation{Exposed: timeline(s(60), false, join(started("a", 0), renewals("a", s(2), s(60)), stopped("a", s(60)), stopped("b", s(60)))...)}},
		{name: "one-leader - a fails to renew and stops at 14s, b takes over at 17s - pass", invariant: "one-leader",
			obs: &Observation{Exposed: timeline(s(60), false, join(started("a", 0), renewals("a", s(2), s(2)), failed("a", s(4), s(12)), stopped("a", s(14)),
				started("b", s(17)), renewals("b", s(19), s(59)))...)}},
		{name: "one-leader - b leads while a still leads, a renewing - fail", invariant: "one-leader", want: ErrTwoLeaders,
			obs: &Observation{Exposed: timeline(s(60), false, join(started("a", 0), renewals("a", s(2), s(60)), started("b", s(31)), renewals("b", s(33), s(60)))...)}},
		{name: "one-leader - a's last renewal answered 5s late, b takes over 15s after it was stored - the answer's latency allowed - pass", invariant: "one-leader",
			obs: &Observation{Exposed: timeline(s(60), false, join(started("a", 0),
				[]LeaderEvent{{At: s(7), Sent: s(2), Candidate: "a", Kind: LeaseWritten, Verb: "update"}},
				failed("a", s(9), s(17)), stopped("a", s(19)), started("b", s(17)))...)}},
		{name: "one-leader - a takeover 10s after the record was stored - fail", invariant: "one-leader", want: ErrTwoLeaders,
			obs: func() *Observation {
				o := leaseWrites(t, write{0, "a"}, write{s(2), "a"}, write{s(12), "b"})
				o.Exposed = timeline(s(60), false)
				return o
			}()},
		{name: "one-leader - a takeover 15s after the last renewal - pass", invariant: "one-leader",
			obs: func() *Observation {
				o := leaseWrites(t, write{0, "a"}, write{s(2), "a"}, write{s(4), "a"}, write{s(19), "b"})
				o.Exposed = timeline(s(60), false)
				return o
			}()},
		{name: "one-leader - a takeover 14.5s after a renewal that reads as the one 0.5s before it - pass", invariant: "one-leader",
			obs: func() *Observation {
				o := leaseWrites(t, write{0, "a"}, write{s(0.5), "a"}, write{s(15), "b"})
				o.Exposed = timeline(s(60), false)
				return o
			}()},
		{name: "leader-steps-down - a renews every 2s until the end - pass", invariant: "leader-steps-down",
			obs: &Observation{Exposed: timeline(s(60), false, join(started("a", 0), renewals("a", s(2), s(60)), stopped("a", s(60)))...)}},
		{name: "leader-steps-down - renewals fail from 4s, a stops at 14s (2s + 2s + 10s) - pass", invariant: "leader-steps-down",
			obs: &Observation{Exposed: timeline(s(60), false, join(started("a", 0), renewals("a", s(2), s(2)), failed("a", s(4), s(12)), stopped("a", s(14)))...)}},
		{name: "leader-steps-down - renewals fail from 4s, a leads to the end - fail", invariant: "leader-steps-down", want: ErrLeaderStayed,
			obs: &Observation{Exposed: timeline(s(60), false, join(started("a", 0), renewals("a", s(2), s(2)), failed("a", s(4), s(58)))...)}},
		{name: "leader-steps-down - renewals fail from 4s, a stops at 20s - fail", invariant: "leader-steps-down", want: ErrLeaderStayed,
			obs: &Observation{Exposed: timeline(s(60), false, join(started("a", 0), renewals("a", s(2), s(2)), failed("a", s(4), s(18)), stopped("a", s(20)))...)}},
		{name: "leader-steps-down - with ReleaseOnCancel, a stops at 20s, within 2s + 10s + 10s - pass", invariant: "leader-steps-down",
			obs: &Observation{Exposed: timeline(s(60), true, join(started("a", 0), renewals("a", s(2), s(2)), failed("a", s(4), s(18)), stopped("a", s(20)))...)}},
		{name: "leader-steps-down - a gap of 20s between renewals, leading through it - fail", invariant: "leader-steps-down", want: ErrLeaderStayed,
			obs: &Observation{Exposed: timeline(s(60), false, join(started("a", 0), renewals("a", s(2), s(10)), renewals("a", s(30), s(60)))...)}},
		{name: "leader-elected - a leads from the start - pass", invariant: "leader-elected",
			obs: &Observation{Exposed: timeline(s(60), false, join(started("a", 0), renewals("a", s(2), s(60)))...)}},
		{name: "leader-elected - a fresh instance takes over at 19s - pass", invariant: "leader-elected",
			obs: &Observation{Exposed: timeline(s(60), false, started("b", s(19))...)}},
		{name: "leader-elected - no leader in 60s, every request answered - fail", invariant: "leader-elected", want: ErrNoLeader,
			obs: &Observation{Exposed: timeline(s(60), false)}},
		{name: "leader-elected - no leader in 20s, the run ended before the bound - not judged - pass", invariant: "leader-elected",
			obs: &Observation{Exposed: timeline(s(20), false)}, notJudged: true},
		{name: "leader-elected - no leader while requests fail until 50s - not judged - pass", invariant: "leader-elected",
			obs: &Observation{Exposed: timeline(s(60), false, failed("a", 0, s(50))...)}, notJudged: true},
		{name: "leader-elected - no leader while requests fail until 30s, none to 60s - fail", invariant: "leader-elected", want: ErrNoLeader,
			obs: &Observation{Exposed: timeline(s(60), false, failed("a", 0, s(30))...)}},
		{name: "leader-elected - a stops at 14s, none leads to 60s - fail", invariant: "leader-elected", want: ErrNoLeader,
			obs: &Observation{Exposed: timeline(s(60), false, join(started("a", 0), stopped("a", s(14)))...)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inv, ok := LookupInvariant(tc.invariant)
			if !ok {
				t.Fatalf("LookupInvariant(%q): got none, want the invariant", tc.invariant)
			}
			err := inv.Check(tc.obs)
			switch {
			case tc.notJudged:
				if !errors.Is(err, ErrNotJudged) {
					t.Errorf("got %v, want not judged", err)
				}
			case tc.want == nil && err != nil:
				t.Errorf("got %v, want it to hold", err)
			case tc.want != nil && !errors.Is(err, tc.want):
				t.Errorf("got %v, want %v", err, tc.want)
			default:
				if err != nil {
					t.Logf("%v", err)
				}
			}
		})
	}
}
