package faultstest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
)

// breakingCases shows every breaking fault making a real informer diverge
// from the truth, or, where client-go recovers, what it did instead.
//
// duplicate: a store applies an event twice with the same result, so the
// informer's state converges. The divergence a client sees is in its
// handler, which is told of one delete twice.
//
// bookmark-regress: client-go takes any bookmark's resourceVersion as its
// own. So it re-watches from the older one once the stream ends. The
// events it is sent again come in order, and the state converges. What
// diverges is the re-watch: it asks for resourceVersions the client had
// already seen.
//
// garble-frame: client-go cannot decode the frame. It turns it into an
// InternalError and ends the watch. It then lists again (or falls back
// from WatchList to LIST) and converges.
func breakingCases() []faultCase {
	const on, off = true, false
	var cases []faultCase
	for _, w := range []bool{on, off} {
		regressAt := liveFrame(w, 30)
		cases = append(cases,
			faultCase{fault: "reorder", watchList: w, situation: "the add and the update of e2e-beta/late-1 swapped, diverges",
				plan: fmt.Sprintf("reorder:watch=1,frame=%d", liveFrame(w, 34)), check: diverges("e2e-beta/late-1")},
			faultCase{fault: "duplicate", watchList: w, situation: "the delete of e2e-beta/late-0 sent twice, handler told twice",
				plan: fmt.Sprintf("duplicate:watch=1,frame=%d", liveFrame(w, changes)), check: deletedTimes("e2e-beta/late-0", 2)},
			faultCase{fault: "drop-event", watchList: w, situation: "the delete of e2e-beta/late-0 not sent, diverges",
				plan: fmt.Sprintf("drop-event:watch=1,frame=%d", liveFrame(w, changes)), check: diverges("e2e-beta/late-0")},
			faultCase{fault: "rv-regress", watchList: w, situation: "the update of e2e-beta/late-1 with an older resourceVersion, diverges",
				plan: fmt.Sprintf("rv-regress:watch=1,frame=%d", liveFrame(w, 35)), check: diverges("e2e-beta/late-1")},
			faultCase{fault: "bookmark-regress", watchList: w, situation: "an older bookmark before change 30, then the connection drops, re-watch goes back",
				plan: fmt.Sprintf("bookmark-regress:watch=1,frame=%d", regressAt),
				// the frames before change 30 and the inserted bookmark
				cut: map[int]int{1: regressAt}, check: rewatchGoesBack(29)},
			faultCase{fault: "garble-frame", watchList: w, situation: "change 5 garbled, the client relists",
				plan: fmt.Sprintf("garble-frame:watch=1,frame=%d", liveFrame(w, 5)), check: relisted},
		)
	}
	cases = append(cases,
		faultCase{fault: "missing-initial-events-end", watchList: on, situation: "no WatchList ends its initial events, never syncs, diverges",
			plan: "missing-initial-events-end", check: neverSyncs},
		faultCase{fault: "missing-initial-events-end", watchList: off, situation: "no WatchList request",
			skip: "the client never sends a WatchList request"},
	)
	return cases
}

func TestBreakingFaultsDiverge(t *testing.T) {
	t.Parallel()
	runFaultCases(t, faults.Breaking, breakingCases(), false)
}

// diverges checks that the informer's state differs from the truth, at key
// among others.
func diverges(key string) func(t *testing.T, o *outcome) {
	return func(t *testing.T, o *outcome) {
		t.Helper()
		d := diffStates(o.states[0], o.truth)
		if len(d) == 0 {
			t.Errorf("informer state: got state == truth (%d objects), want divergence", len(o.truth))
			return
		}
		found := false
		for _, l := range d {
			found = found || strings.HasPrefix(l, key+":") || strings.HasPrefix(l, key+"@")
		}
		if !found {
			t.Errorf("informer state: got differences %q, want one at %s", d, key)
		}
		t.Logf("diverged: %q", d)
	}
}

// deletedTimes checks that the state converged and the handler was told
// n times of key's deletion.
func deletedTimes(key string, n int) func(t *testing.T, o *outcome) {
	return func(t *testing.T, o *outcome) {
		t.Helper()
		requireConverged(t, o)
		got := 0
		for _, s := range o.notes[0] {
			if strings.HasPrefix(s, "delete "+key+"@") {
				got++
			}
		}
		if got != n {
			t.Errorf("OnDelete(%s): got %d calls, want %d (the truth deletes it once)", key, got, n)
		}
	}
}

// rewatchGoesBack checks that the state converged. It also checks that
// the first request after the first watch re-watches from a
// resourceVersion older than change k's, which the client had been sent.
func rewatchGoesBack(k int) func(t *testing.T, o *outcome) {
	return func(t *testing.T, o *outcome) {
		t.Helper()
		requireConverged(t, o)
		seen := o.truthLog.Events[k-1].RV()
		first := -1
		for i, r := range o.requests {
			if strings.HasPrefix(r, "WATCH") {
				first = i
				break
			}
		}
		if first < 0 || first+1 >= len(o.requests) {
			t.Errorf("requests: got %q, want a re-watch after the first watch", o.requests)
			return
		}
		next := o.requests[first+1]
		rv, ok := strings.CutPrefix(next, "WATCH rv=")
		if !ok {
			t.Errorf("request after the first watch: got %q, want a WATCH", next)
			return
		}
		if !o.truthLog.Order().Less(rv, seen) {
			t.Errorf("re-watch: got rv %s, want one older than %s (change %d, already sent)", rv, seen, k)
		}
	}
}

// relisted checks that the state converged and that the client listed
// again after its first watch: a LIST, or a second WatchList.
func relisted(t *testing.T, o *outcome) {
	t.Helper()
	requireConverged(t, o)
	if got := count(o.requests, "LIST ") + count(o.requests, "WATCHLIST "); got < 2 {
		t.Errorf("LIST and WatchList requests: got %d (%q), want at least 2", got, o.requests)
	}
}

// neverSyncs checks that the informer never synced and holds nothing,
// while the truth holds objects.
func neverSyncs(t *testing.T, o *outcome) {
	t.Helper()
	if o.synced[0] {
		t.Errorf("HasSynced: got true, want false")
	}
	if d := diffStates(o.states[0], o.truth); len(d) == 0 {
		t.Errorf("informer state: got state == truth (%d objects), want divergence", len(o.truth))
	}
	if len(o.states[0]) != 0 {
		t.Errorf("informer state: got %q, want empty", keys(o.states[0]))
	}
	if got := count(o.requests, "WATCHLIST "); got < 2 {
		t.Errorf("WatchList requests: got %d (%q), want at least 2 (client-go retries)", got, o.requests)
	}
}
