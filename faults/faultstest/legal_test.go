package faultstest

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/synth"
)

// legalCases places every legal fault where it matters, on both client
// paths; a path where the fault cannot fire is a skip that says why.
func legalCases() []faultCase {
	const on, off = true, false
	return []faultCase{
		{fault: "drop-bookmark", watchList: on, situation: "every bookmark of the WatchList stream dropped but the initial-events-end one",
			plan: "drop-bookmark:watch=1"},
		{fault: "drop-bookmark", watchList: off, situation: "every bookmark of the first watch dropped",
			plan: "drop-bookmark:watch=1"},

		{fault: "drop-all-bookmarks", watchList: on, situation: "no watch sends a bookmark but the initial-events-end one",
			plan: "drop-all-bookmarks"},
		{fault: "drop-all-bookmarks", watchList: off, situation: "no watch sends a bookmark",
			plan: "drop-all-bookmarks"},

		{fault: "close-watch", watchList: on, situation: "WatchList closed at once",
			plan: "close-watch:after=0,watch=1"},
		{fault: "close-watch", watchList: on, situation: "WatchList closed after 5 initial events",
			plan: "close-watch:after=5,watch=1"},
		{fault: "close-watch", watchList: on, situation: "WatchList closed after 5 live events",
			plan: fmt.Sprintf("close-watch:after=%d,watch=1", initialObjects+5)},
		{fault: "close-watch", watchList: off, situation: "first watch closed at once",
			plan: "close-watch:after=0,watch=1"},
		{fault: "close-watch", watchList: off, situation: "first watch closed after 5 events",
			plan: "close-watch:after=5,watch=1"},

		{fault: "expire-watch", watchList: on, situation: "the re-watch after the WatchList answered 410 at open",
			plan: "expire-watch:after=0,watch=2"},
		{fault: "expire-watch", watchList: on, situation: "WatchList answered 410 right after its initial events (due after 3)",
			plan: "expire-watch:after=3,watch=1"},
		{fault: "expire-watch", watchList: on, situation: "WatchList answered 410 after 3 live events",
			plan: fmt.Sprintf("expire-watch:after=%d,watch=1", initialObjects+3)},
		{fault: "expire-watch", watchList: off, situation: "first watch answered 410 at open",
			plan: "expire-watch:after=0,watch=1"},
		{fault: "expire-watch", watchList: off, situation: "first watch answered 410 after 3 events",
			plan: "expire-watch:after=3,watch=1"},
		{fault: "expire-watch", watchList: off, situation: "no watch cache, pages of 7, first watch answered 410 after 3 events, " +
			"the paginated relist at its last RV is exact and answered 410 (the 410 is sticky), the reflector lists at RV \"\"",
			plan: "expire-watch:after=3,watch=1", opts: []replayer.Option{replayer.WithoutWatchCache()}, pageSize: 7,
			check: wantRequest("LIST rv=0 limit=7", "WATCH", "LIST rv= limit=7")},

		{fault: "expire-continue", watchList: on, situation: "1,100 generated configmaps, no watch cache, WatchList refused, page 2 of the fallback LIST answered 410",
			history: largeHistory, plan: "watchlist-unsupported:watch=1 expire-continue:page=2", opts: []replayer.Option{replayer.WithoutWatchCache()},
			check: wantRequest("WATCHLIST", "LIST rv=0 limit=500", "LIST continue limit=500", "LIST rv=0 limit=")},
		{fault: "expire-continue", watchList: off, situation: "no watch cache, pages of 7, page 2 answered 410",
			plan: "expire-continue:page=2", opts: []replayer.Option{replayer.WithoutWatchCache()}, pageSize: 7,
			check: wantRequest("LIST continue limit=7", "LIST rv=0 limit=")},

		{fault: "too-large-rv", watchList: on, situation: "WatchList refused, the fallback LIST answered 504 until the REST client gives up, the reflector lists at RV \"\"",
			plan: "watchlist-unsupported:watch=1 " + tooLargeLists(1), check: wantRequest("LIST rv=0 limit=500", "LIST rv= limit=500")},
		{fault: "too-large-rv", watchList: off, situation: "first LIST answered 504 once, the REST client retries it after Retry-After",
			plan: "too-large-rv:list=1", check: wantRequest("LIST rv=0 limit=500", "LIST rv=0 limit=500")},
		{fault: "too-large-rv", watchList: off, situation: "first LIST answered 504 until the REST client gives up, the reflector lists at RV \"\"",
			plan: tooLargeLists(1), check: wantRequest("LIST rv=0 limit=500", "LIST rv= limit=500")},
		{fault: "too-large-rv", watchList: off, situation: "watch answered 410, the relist at the last RV answered 504 until the REST client gives up",
			plan: "expire-watch:after=3,watch=1 " + tooLargeLists(2), check: wantRequest("LIST rv=0 limit=500", "WATCH", "LIST rv= limit=")},

		{fault: "stale-list", watchList: on, situation: "a second informer's WatchList refused, its LIST served 10 changes behind",
			plan: "watchlist-unsupported:watch=2 stale-list:list=1,back=10", second: true},
		{fault: "stale-list", watchList: off, situation: "a second informer's LIST served 10 changes behind",
			plan: "stale-list:list=2,back=10", second: true},

		{fault: "http-error", watchList: on, situation: "WatchList answered 500, the client lists instead",
			plan: "http-error:code=500,watch=1", check: wantRequest("LIST rv=0")},
		{fault: "http-error", watchList: on, situation: "WatchList answered 429, the client retries it",
			plan: "http-error:code=429,watch=1"},
		{fault: "http-error", watchList: off, situation: "first LIST answered 503",
			plan: "http-error:code=503,list=1"},
		{fault: "http-error", watchList: off, situation: "first watch answered 500, the client relists",
			plan: "http-error:code=500,watch=1"},
		{fault: "http-error", watchList: off, situation: "first watch answered 429, the client re-watches",
			plan: "http-error:code=429,watch=1"},

		{fault: "close-after-initial-events", watchList: on, situation: "the WatchList ends after its bookmark, compacted past it: the next WatchList, not older than the bookmark, gets the newer state",
			plan: "close-after-initial-events:watch=1", check: wantRequest("WATCHLIST rv=", "WATCHLIST rv=")},
		{fault: "close-after-initial-events", watchList: on, situation: "every WatchList ends after its bookmark",
			plan: "close-after-initial-events"},
		{fault: "close-after-initial-events", watchList: off, situation: "no WatchList request",
			skip: "the client never sends a WatchList request"},

		{fault: "throttle", watchList: on, situation: "the WatchList rejected by priority and fairness, Retry-After 4 s: the REST client waits and asks again",
			plan: "throttle:after=4,watch=1", check: wantRequest("WATCHLIST rv=", "WATCHLIST rv=")},
		{fault: "throttle", watchList: off, situation: "the first LIST rejected by priority and fairness, Retry-After 32 s: the REST client waits and asks again",
			plan: "throttle:after=32,list=1", check: wantRequest("LIST rv=0", "LIST rv=0")},
		{fault: "throttle", watchList: off, situation: "the first watch rejected, Retry-After 1 s",
			plan: "throttle:after=1,watch=1", check: wantRequest("LIST rv=0", "WATCH rv=", "WATCH rv=")},

		{fault: "reset", watchList: on, situation: "WatchList cut in initial event 10",
			plan: "reset:watch=1,frame=10"},
		{fault: "reset", watchList: on, situation: "WatchList cut in live change 5",
			plan: fmt.Sprintf("reset:watch=1,frame=%d", liveFrame(on, 5))},
		{fault: "reset", watchList: off, situation: "first watch cut in change 5",
			plan: fmt.Sprintf("reset:watch=1,frame=%d", liveFrame(off, 5))},
		// points: LIST #1 is 0, watch #1 is 1, its k-th frame is k+1
		{fault: "reset", watchList: off, situation: "decision point 6 (change 5) cut",
			plan: fmt.Sprintf("reset:at=%d", liveFrame(off, 5)+1), check: firedAt("reset", 1, liveFrame(off, 5))},

		{fault: "delay", watchList: on, situation: "initial-events-end bookmark 10 s late",
			plan: fmt.Sprintf("delay:ms=10000,watch=1,frame=%d", initialObjects+1)},
		{fault: "delay", watchList: on, situation: "live change 5 65 s late",
			plan: fmt.Sprintf("delay:ms=65000,watch=1,frame=%d", liveFrame(on, 5))},
		{fault: "delay", watchList: off, situation: "change 5 65 s late",
			plan: fmt.Sprintf("delay:ms=65000,watch=1,frame=%d", liveFrame(off, 5))},

		{fault: "watchlist-unsupported", watchList: on, situation: "every WatchList refused, the client lists",
			plan: "watchlist-unsupported", check: wantRequest("LIST rv=0")},
		{fault: "watchlist-unsupported", watchList: off, situation: "no WatchList request",
			skip: "the client never sends a WatchList request"},

		{fault: "initial-events-ignored", watchList: on, situation: "the first WatchList served as a plain watch ends at its timeout with no initial-events-end, the next one syncs",
			plan: "initial-events-ignored:watch=1", check: wantRequest("WATCHLIST rv=", "WATCHLIST rv=")},
		{fault: "initial-events-ignored", watchList: off, situation: "no WatchList request",
			skip: "the client never sends a WatchList request"},

		{fault: "opaque-rv", watchList: on, situation: "every resourceVersion opaque",
			plan: "opaque-rv", check: opaqueRVs},
		{fault: "opaque-rv", watchList: off, situation: "every resourceVersion opaque",
			plan: "opaque-rv", check: opaqueRVs},

		{fault: "recreate", watchList: on, situation: "object 1 recreated before the re-watch",
			plan: "recreate:watch=2,object=1", check: recreated},
		{fault: "recreate", watchList: off, situation: "object 1 recreated before the re-watch",
			plan: "recreate:watch=2,object=1", check: recreated},

		{fault: "consistent-read-wait", watchList: off, situation: "watch answered 410, the relist at the last RV answered 504 until the REST client gives up, the relist at RV \"\" held 3 s for the watch cache",
			plan: "expire-watch:after=3,watch=1 " + tooLargeLists(2) + " consistent-read-wait:ms=3000", check: wantRequest("LIST rv=0 limit=500", "WATCH", "LIST rv= limit=")},
		{fault: "consistent-read-wait", watchList: on, situation: "WatchList refused, the fallback LIST answered 504 until the REST client gives up, the consistent relist held 3 s",
			plan: "watchlist-unsupported:watch=1 " + tooLargeLists(1) + " consistent-read-wait:ms=3000", check: wantRequest("LIST rv=0 limit=500", "LIST rv= limit=500")},

		{fault: "apiserver-restart", watchList: on, situation: "the apiserver restarts at the WatchList, down 5 s: the informer tries again once it is back",
			plan: "apiserver-restart:down=5,watch=1", check: wantRequest("WATCHLIST", "WATCHLIST")},
		{fault: "apiserver-restart", watchList: off, situation: "the apiserver restarts at the first watch, down 5 s: the reflector re-watches from its list's resourceVersion, where the new watch cache starts",
			plan: "apiserver-restart:down=5,watch=1", check: wantRequest("LIST rv=0", "WATCH", "WATCH")},
		{fault: "apiserver-restart", watchList: off, situation: "the apiserver restarts at a second informer's LIST, down 30 s: the first informer's watch ends and both sync once it is back",
			plan: "apiserver-restart:down=30,list=2", second: true, check: wantRequest("LIST rv=0", "WATCH", "LIST rv=0", "WATCH", "LIST rv=0")},
		{fault: "apiserver-restart", watchList: on, situation: "the apiserver restarts at a second informer's WatchList, down 30 s: the first informer's watch ends and both sync once it is back",
			plan: "apiserver-restart:down=30,watch=2", second: true, check: wantRequest("WATCHLIST", "WATCHLIST", "WATCH")},

		{fault: "crash-after-write", watchList: on, situation: "the target crashes after its first write",
			skip: crashedByHarness},
		{fault: "crash-after-write", watchList: off, situation: "the target crashes after its first write",
			skip: crashedByHarness},
		{fault: "graceful-restart", watchList: on, situation: "the target is stopped at its WatchList",
			skip: stoppedByHarness},
		{fault: "graceful-restart", watchList: off, situation: "the target is stopped at its first LIST",
			skip: stoppedByHarness},
	}
}

// crashedByHarness is why a fault of a WritePoint has no scenario here.
// It crashes the target, which the run restarts, and an informer alone
// writes nothing. fuzz/harness TestCrashAfterWrite shows a writing target
// converge through it on both client paths.
const crashedByHarness = "a fault at the target's writes: the harness restarts the target (fuzz/harness TestCrashAfterWrite)"

// stoppedByHarness is why graceful-restart has no scenario here. It stops
// the target, which the run restarts; a replay without Hooks.TargetStop
// does not act on it. The test TestGracefulRestart of fuzz/harness shows a
// writing target converge through it on both client paths. It is stopped
// while syncing and after.
const stoppedByHarness = "a fault that stops the target: the harness restarts it (fuzz/harness TestGracefulRestart)"

// largeHistory is a generated history of 1,100 configmaps and 30 changes:
// a LIST of it in pages of client-go's 500 is a continue chain.
func largeHistory(t testing.TB) *history.History {
	t.Helper()
	f, err := synth.Generate(synth.GenerateOptions{Objects: 1100, Events: 30, Seed: 7, Kinds: []string{"configmaps"}})
	if err != nil {
		t.Fatalf("generate: got error %v, want none", err)
	}
	h, err := history.Build(f)
	if err != nil {
		t.Fatalf("build history: got error %v, want none", err)
	}
	return h
}

// restRetries is how often client-go's REST client retries a request
// answered 5xx with a Retry-After header (kube-apiserver's 504 for a too
// large resourceVersion carries one).
const restRetries = 10

// tooLargeLists answers the LIST requests from the first on 504, as often as
// client-go's REST client sends one LIST: the reflector sees the error.
func tooLargeLists(first int) string {
	var ds []string
	for n := first; n <= first+restRetries; n++ {
		ds = append(ds, fmt.Sprintf("too-large-rv:list=%d", n))
	}
	return strings.Join(ds, " ")
}

func TestLegalFaultsConverge(t *testing.T) {
	t.Parallel()
	runFaultCases(t, faults.Legal, legalCases(), true)
}

// wantRequest checks that the client sent requests starting with each
// prefix, in that order.
func wantRequest(prefixes ...string) func(t *testing.T, o *outcome) {
	return func(t *testing.T, o *outcome) {
		t.Helper()
		i := 0
		for _, r := range o.requests {
			if i < len(prefixes) && len(r) >= len(prefixes[i]) && r[:len(prefixes[i])] == prefixes[i] {
				i++
			}
		}
		if i < len(prefixes) {
			t.Errorf("requests: got %q, want requests starting with %q in that order", o.requests, prefixes)
		}
	}
}

// opaqueRVs checks that the informer holds no numeric resourceVersion.
func opaqueRVs(t *testing.T, o *outcome) {
	t.Helper()
	for _, s := range o.states[0] {
		if _, err := strconv.ParseUint(s.RV, 10, 64); err == nil {
			t.Errorf("%s: got numeric resourceVersion %s, want an opaque one", s.Key, s.RV)
		}
	}
}

// recreated checks that the truth differs from the recording by one
// object's UID: the recreation is what the informer converged to.
func recreated(t *testing.T, o *outcome) {
	t.Helper()
	rec := truthState(t, configMapLog(t, loadReal(t)))
	if d := diffStates(o.truth, rec); len(d) == 0 {
		t.Errorf("truth: got the recorded final state, want one object recreated")
	} else {
		t.Logf("truth vs recording: %q", d)
	}
}
