package crtarget

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// TestReconcilesFailing feeds a Reconciles timed outcomes and a stop. It
// checks which keys Failing names, by their last reconcile before the
// stop's instant. It checks whether the run may end (settled): every key
// whose latest reconcile failed has failed settleAfter times in a row.
func TestReconcilesFailing(t *testing.T) {
	type end struct {
		at  time.Duration
		key string
		err error
	}
	boom := errors.New("boom")
	failures := func(key string, n int) []end {
		var out []end
		for i := range n {
			out = append(out, end{time.Duration(i + 1), key, boom})
		}
		return out
	}
	for _, tc := range []struct {
		name        string
		ends        []end
		stopAt      time.Duration // negative: no stop
		wantFailing []string
		wantSettled bool // every failing key failed settleAfter times in a row
	}{
		{name: "reconciles - failed then succeeded - pass", ends: []end{{1, "a", boom}, {2, "a", nil}}, stopAt: 3, wantSettled: true},
		{name: "reconciles - last one failed - fail", ends: []end{{1, "a", nil}, {2, "a", boom}, {3, "b", nil}}, stopAt: 4, wantFailing: []string{"a"}},
		{name: "reconciles - failed again and again - fail", ends: []end{{1, "a", boom}, {2, "a", boom}, {5, "a", boom}}, stopAt: -1, wantFailing: []string{"a"}},
		{name: "reconciles - terminal error - pass", ends: []end{{1, "a", reconcile.TerminalError(boom)}}, stopAt: 2, wantSettled: true},
		{name: "reconciles - failed at the stop's instant, succeeded before - pass", ends: []end{{1, "a", nil}, {4, "a", boom}}, stopAt: 4},
		{name: "reconciles - failed after the stop, failing before - fail", ends: []end{{1, "a", boom}, {5, "a", nil}, {6, "a", boom}}, stopAt: 5, wantFailing: []string{"a"}},
		{name: "reconciles - failed settleAfter times in a row - settled, fail", ends: failures("a", settleAfter), stopAt: -1, wantFailing: []string{"a"}, wantSettled: true},
		{name: "reconciles - one short of settleAfter in a row - unsettled, fail", ends: failures("a", settleAfter-1), stopAt: -1, wantFailing: []string{"a"}},
		{name: "reconciles - settled key succeeded, failed once more - unsettled, fail",
			ends: append(append(failures("a", settleAfter), end{100, "a", nil}), end{101, "a", boom}), stopAt: -1, wantFailing: []string{"a"}},
		{name: "reconciles - a settled key beside one failing once - unsettled, fail",
			ends: append(failures("a", settleAfter), end{100, "b", boom}), stopAt: -1, wantFailing: []string{"a", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var now time.Duration
			r := newReconciles(func() time.Duration { return now })
			for _, e := range tc.ends {
				if tc.stopAt >= 0 && now < tc.stopAt && e.at >= tc.stopAt {
					now = tc.stopAt
					r.stop()
				}
				now = e.at
				r.record("c", e.key, e.err)
			}
			if settled := r.settled(); settled != tc.wantSettled {
				t.Errorf("settled: got %v, want %v", settled, tc.wantSettled)
			}
			if tc.stopAt >= 0 && now < tc.stopAt {
				now = tc.stopAt
				r.stop()
			}
			var got []string
			for _, f := range r.Failing() {
				got = append(got, f.Key)
			}
			if !slices.Equal(got, tc.wantFailing) {
				t.Errorf("failing: got %v, want %v (%s)", got, tc.wantFailing, fmt.Sprint(r.Failing()))
			}
		})
	}
}

// TestReconcilesRetryDue checks when a Reconciles says the next retry of a
// failed key is due: after its last failure, the rate limiter's delay for
// that many failures in a row (5 ms doubled each, at most 1000 s).
func TestReconcilesRetryDue(t *testing.T) {
	boom := errors.New("boom")
	const s = time.Second
	for _, tc := range []struct {
		name        string
		ends        []time.Duration // a failure of key a at each, then a success at ok
		ok          time.Duration   // 0: none
		other       time.Duration   // a failure of key b then (0: none)
		wantDue     time.Duration
		wantPending bool
	}{
		{name: "retry due - none failed - none pending - pass"},
		{name: "retry due - one failure at 10 s - 5 ms on - pass", ends: []time.Duration{10 * s}, wantDue: 10*s + 5*time.Millisecond, wantPending: true},
		{name: "retry due - three in a row, the last at 12 s - 20 ms on - pass", ends: []time.Duration{10 * s, 11 * s, 12 * s}, wantDue: 12*s + 20*time.Millisecond, wantPending: true},
		{name: "retry due - failed, then succeeded - none pending - pass", ends: []time.Duration{10 * s, 11 * s}, ok: 12 * s},
		{name: "retry due - 30 in a row - at most 1000 s on - pass", ends: seconds(30), wantDue: 30*s + 1000*s, wantPending: true},
		{name: "retry due - two keys - the later retry - pass", ends: []time.Duration{10 * s}, other: 20 * s, wantDue: 20*s + 5*time.Millisecond, wantPending: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var now time.Duration
			r := newReconciles(func() time.Duration { return now })
			for _, at := range tc.ends {
				now = at
				r.record("c", "a", boom)
			}
			if tc.ok > 0 {
				now = tc.ok
				r.record("c", "a", nil)
			}
			if tc.other > 0 {
				now = tc.other
				r.record("c", "b", boom)
			}
			due, pending := r.retryDue()
			if due != tc.wantDue || pending != tc.wantPending {
				t.Errorf("retry due: got %v (pending %v), want %v (pending %v)", due, pending, tc.wantDue, tc.wantPending)
			}
		})
	}
}

// seconds returns 1 s, 2 s, ... n s.
func seconds(n int) []time.Duration {
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = time.Duration(i+1) * time.Second
	}
	return out
}
