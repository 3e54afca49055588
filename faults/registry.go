package faults

import "fmt"

// Registry holds every fault lwreplay knows, legal ones first. The name
// (a constant of names.go) is the CLI value, subtest name and report key.
// An entry is all there is to say about a fault but how the replayer acts
// it out. It gives the class, the kind of point it acts at, the
// parameters, the byte codes, and how Describe and Story say it.
var Registry = []Fault{
	// legal: kube-apiserver may do this; a correct client converges
	{Name: DropBookmark, Class: Legal, Point: FramePoint,
		Codes: []Code{{N: 0}},
		Doc:   "a BOOKMARK frame is not sent (bookmarks are best-effort; the initial-events-end bookmark is never dropped)",
		Do:    fixed("drop the frame if it is a BOOKMARK"), Did: "%s dropped",
		Persists: PersistsLegal, PersistsWhy: "bookmarks are best-effort: a server may send none"},
	{Name: DropAllBookmarks, Class: Legal, Point: WatchPoint,
		Codes: []Code{{N: 1}},
		Doc:   "the watch sends no BOOKMARK at all but the initial-events-end one",
		Do:    fixed("send no BOOKMARK but the initial-events-end one"), Did: "%s sent without BOOKMARKs",
		Persists: PersistsLegal, PersistsWhy: "a server without periodic bookmarks, or a proxy that drops them"},
	{Name: CloseWatch, Class: Legal, Point: WatchPoint,
		Doc:    "the watch stream ends cleanly after some events, as at a timeout or an apiserver restart",
		Params: []Param{{Name: "after", Doc: "events sent before the close (0: none)", Values: []int{0, 1, 2, 5}}},
		Codes:  []Code{{2, []int{0}}, {3, []int{1}}, {4, []int{2}}, {5, []int{5}}},
		Do: func(d Decision) string {
			if n := d.Params["after"]; n > 0 {
				return "close the watch after " + count(n, "event")
			}
			return "close the watch before any event"
		},
		Did:      "%s closed",
		Persists: PersistsLegal, PersistsWhy: "a proxy or load balancer that cuts every long stream, a watch timeout shorter than a large state takes to stream"},
	{Name: ExpireWatch, Class: Legal, Point: WatchPoint,
		Doc:    "the watch is answered with one ERROR event, 410 Expired: when it opens, or mid-stream after some events; the 410 is sticky: the resourceVersion refused and every older one stay expired",
		Params: []Param{{Name: "after", Doc: "events sent before the ERROR (0: at open)", Values: []int{0, 1, 3}}},
		Codes:  []Code{{6, []int{0}}, {7, []int{1}}, {8, []int{3}}},
		Do: func(d Decision) string {
			if n := d.Params["after"]; n > 0 {
				return "send a 410 Expired ERROR after " + count(n, "event")
			}
			return "answer 410 Expired at open"
		},
		Did:      "%s answered 410 Expired",
		Persists: PersistsLegal, PersistsWhy: "a busy cluster whose compaction keeps passing a slow client"},
	{Name: CloseAfterInitialEvents, Class: Legal, Point: WatchPoint,
		Codes: []Code{{N: 9}},
		Doc:   "a WatchList stream ends cleanly right after its initial-events-end bookmark and its resourceVersion is compacted away, so the re-watch from it gets 410: a watch whose timeout ran while a large state streamed, by then older than etcd's compaction (kubernetes#134837)",
		Do:    fixed("end the WatchList right after its initial-events-end bookmark and compact past the bookmark"), Did: "%s closed after its initial events",
		Persists: PersistsLegal, PersistsWhy: "a state so large that streaming it outlasts the watch timeout and the compaction interval, every time"},
	{Name: ExpireContinue, Class: Legal, Point: ListPoint,
		Codes: []Code{{N: 10}},
		Doc:   "a LIST page requested with a continue token is answered 410 Expired (the token is past compaction); the 410 is sticky: the token's resourceVersion and every older one stay expired",
		Do:    fixed("answer 410 Expired"), Did: "%s answered 410 Expired",
		Persists: PersistsLegal, PersistsWhy: "pages read slower than the compaction interval"},
	{Name: TooLargeRV, Class: Legal, Point: ListPoint,
		Codes: []Code{{N: 11}},
		Doc:   "the LIST is answered 504 Timeout, cause ResourceVersionTooLarge, as by an apiserver whose cache lags",
		Do:    fixed("answer 504 Timeout, ResourceVersionTooLarge"), Did: "%s answered 504 ResourceVersionTooLarge",
		FailsLists: true, Persists: PersistsLegal, PersistsWhy: "an apiserver whose watch cache keeps lagging (an unhealthy server: a client must back off)"},
	{Name: StaleList, Class: Legal, Point: ListPoint,
		Doc: `a LIST at resourceVersion "0" is served from an older snapshot of the history (a lagging watch cache)`,
		Params: []Param{{Name: "back", Doc: "events the snapshot lags behind (stops at the history's start: a lagging watch cache keeps its own window, whatever etcd compacted or a 410 expired)", Values: []int{1, 3, 5, 10},
			Min: 1, Range: "a snapshot 0 events old is the current state"}},
		Codes: []Code{{12, []int{1}}, {13, []int{3}}, {14, []int{10}}, {41, []int{5}}},
		Do: func(d Decision) string {
			return `serve a LIST at resourceVersion "0" from a snapshot ` + count(d.Params["back"], "event") + " old"
		},
		Did:      "%s served from a stale snapshot",
		Persists: PersistsLegal, PersistsWhy: "a watch cache that keeps lagging behind etcd"},
	{Name: ConsistentReadWait, Class: Legal, Point: ListPoint,
		Doc: "a consistent LIST (resourceVersion \"\", no continue token) is held while the watch cache catches up, then answered from the state the server has then, as kube-apiserver 1.31+ serves one from its watch cache (ConsistentListFromCache: it asks etcd for the current revision and waits until the cache has reached it, at most blockTimeout, 3 s: k8s.io/apiserver pkg/storage/cacher/watch_cache.go waitUntilFreshAndBlock; past it \"cache hasn't caught up within the timeout period. Fall back to etcd.\", delegator.go GetList)",
		Params: []Param{{Name: "ms", Doc: "how long the read waits, in milliseconds", Values: []int{100, 1000, 3000},
			Min: 1, Max: 3000, Range: "the cache's wait before the read falls back to etcd: 1 to 3000 ms"}},
		Codes: []Code{{45, []int{100}}, {46, []int{1000}}, {47, []int{3000}}},
		Do: func(d Decision) string {
			return fmt.Sprintf("hold the consistent LIST %d ms for the watch cache, then answer it", d.Params["ms"])
		},
		Did:      "%s waited for the watch cache",
		Persists: PersistsLegal, PersistsWhy: "a watch cache that keeps lagging behind etcd: every consistent read waits for it"},
	{Name: HTTPError, Class: Legal, Point: RequestPoint,
		Doc: "the request is answered with an HTTP error Status: 429 without Retry-After, 500 or 503",
		Params: []Param{{Name: "code", Doc: "the HTTP status code", Values: []int{429, 500, 503},
			Min: 400, Max: 599, Range: "an HTTP error status kube-apiserver could send: 4xx or 5xx"}},
		Codes:      []Code{{15, []int{429}}, {16, []int{500}}, {17, []int{503}}},
		Do:         func(d Decision) string { return fmt.Sprintf("answer HTTP %d", d.Params["code"]) },
		Did:        "%s answered an HTTP error",
		FailsLists: true, Persists: PersistsLegal, PersistsWhy: "an overloaded or failing apiserver (a client must back off; it cannot converge meanwhile)"},
	{Name: Throttle, Class: Legal, Point: RequestPoint,
		Doc: "the request is rejected as kube-apiserver's priority and fairness filter rejects one: 429 with a Retry-After header and a plain-text body (k8s.io/apiserver pkg/server/filters/priority-and-fairness.go), which client-go's REST client retries after that many seconds, up to 10 times",
		Params: []Param{{Name: "after", Doc: "the Retry-After seconds (APF suggests 1 to 32)", Values: []int{1, 4, 32},
			Min: 1, Max: 32, Range: "the Retry-After seconds priority and fairness suggests: 1 to 32"}},
		Codes:      []Code{{18, []int{1}}, {19, []int{4}}, {20, []int{32}}},
		Do:         func(d Decision) string { return fmt.Sprintf("reject with 429, Retry-After %d s", d.Params["after"]) },
		Did:        "%s throttled",
		FailsLists: true, Persists: PersistsLegal, PersistsWhy: "an apiserver whose priority level stays saturated keeps rejecting (a client must wait; it cannot converge meanwhile)"},
	{Name: Reset, Class: Legal, Point: FramePoint,
		Codes: []Code{{N: 21}},
		Doc:   "the connection is cut in the middle of the frame, as by a proxy or a network fault",
		Do:    fixed("cut the connection mid-frame"), Did: "%s cut mid-frame",
		Persists: PersistsLegal, PersistsWhy: "a proxy or network that keeps cutting connections"},
	{Name: Delay, Class: Legal, Point: FramePoint,
		Doc: "the stream pauses before the frame, in virtual time",
		Params: []Param{{Name: "ms", Doc: "the pause in milliseconds", Values: []int{100, 1000, 10000, 65000},
			Min: 1, Max: 3600000, Range: "no pause at all is no fault; kube-apiserver ends every watch within an hour"}},
		Codes:    []Code{{22, []int{100}}, {23, []int{1000}}, {24, []int{10000}}, {25, []int{65000}}},
		Do:       func(d Decision) string { return fmt.Sprintf("pause %d ms", d.Params["ms"]) },
		Did:      "%s delayed",
		Persists: PersistsLegal, PersistsWhy: "a slow network"},
	{Name: WatchlistUnsupported, Class: Legal, Point: WatchPoint,
		Codes: []Code{{N: 26}},
		Doc:   "a WatchList request is answered as by an apiserver on etcd 3.4: one ERROR event, 500, RequestWatchProgress disabled",
		Do:    fixed("refuse WatchList as on etcd 3.4 (ERROR 500)"), Did: "%s refused WatchList",
		Persists: PersistsLegal, PersistsWhy: "an apiserver on etcd 3.4 refuses every WatchList"},
	{Name: InitialEventsIgnored, Class: Legal, Point: WatchPoint,
		Codes: []Code{{N: 27}},
		Doc:   `a WatchList request is answered as by a server that does not know sendInitialEvents (kube-apiserver before 1.27, whose query decoding drops parameters ListOptions does not have; an aggregated apiserver on an older k8s.io/apiserver; a non-Go apiserver): a plain watch — from resourceVersion "" or "0" the state as ADDED events and no initial-events-end bookmark, from another resourceVersion only the events after it`,
		Do:    fixed("answer WatchList as a plain watch, as a server that does not know sendInitialEvents"), Did: "%s answered as a plain watch",
		Persists: PersistsLegal, PersistsWhy: "a server that does not know sendInitialEvents ignores it on every watch"},
	{Name: OpaqueRV, Class: Legal, Point: PlanPoint,
		Codes: []Code{{N: 28}},
		Doc:   "every resourceVersion is rewritten to a non-numeric string, order kept (RVs are opaque by contract)",
		Do:    fixed("rewrite every resourceVersion to an opaque string"), Did: "every resourceVersion rewritten to an opaque string",
		Persists: Once, PersistsWhy: "a plan-level fault already acts on the whole replay"},
	{Name: Recreate, Class: Legal, Point: WatchPoint,
		Doc:    "while the client is away, an object is deleted and created again under its name with a new UID; the re-watch gets 410 (sticky: every resourceVersion before the new object's stays expired) and the relist shows only the result",
		Params: []Param{{Name: "object", Doc: "which object of the state, by key order (modulo its size)", Values: []int{0, 1, 7}}},
		Codes:  []Code{{29, []int{0}}, {30, []int{1}}, {31, []int{7}}},
		Do: func(d Decision) string {
			return fmt.Sprintf("delete and recreate object %d (key order) under a new UID while the client is away", d.Params["object"])
		},
		Did:      "object recreated before %s",
		Persists: PersistsLegal, PersistsWhy: "objects recreated under their names again and again (controllers that churn)"},
	{Name: CrashAfterWrite, Class: Legal, Point: WritePoint,
		Codes: []Code{{N: 32}},
		Doc:   "the target crashes right after the replay answers this write of its (stored as answered; the answer never reaches it, nor does any later request of that instance) and a fresh instance starts with cold caches: Sieve's intermediate state (a process may die at any instant; kube-apiserver keeps what it stored)",
		Do:    fixed("crash the target once the write is answered, then start a fresh instance"), Did: "target crashed after %s",
		Persists: Once, PersistsWhy: "one crash between two writes is the perturbation; a target that crashes after every write is crash-looping"},

	{Name: GracefulRestart, Class: Legal, Point: RequestPoint,
		Codes: []Code{{N: 33}},
		Doc:   "the target is stopped as by a SIGTERM when this LIST or WATCH of its arrives (its context cancelled; the request is answered as usual), and once it has returned a fresh instance starts with cold caches: a rolling update or a node drain; at its first request, a stop while its caches sync (a process may be told to stop at any instant, and must return)",
		Do:    fixed("stop the target (cancel its context), then start a fresh instance once it has returned"), Did: "target stopped at %s",
		Persists: Once, PersistsWhy: "one restart is the perturbation; a target stopped at every request never gets to run"},
	{Name: APIServerRestart, Class: Legal, Point: RequestPoint,
		Doc: "the apiserver restarts when this LIST or WATCH arrives: every open watch of every resource ends at once, every request (this one first) is refused at connect for some seconds of virtual time, as by a server that is not listening, and the restarted server's watch caches start at each resource's newest state, so a watch from any older resourceVersion gets 410 Expired (k8s.io/apiserver pkg/storage/cacher/watch_cache.go, getAllEventsSinceLocked: \"too old resource version\" below the relist's resourceVersion; a real cache starts at etcd's current revision, which may be newer still); a reproducer cassette keeps what was answered, not the refused connections, which had no answer",
		Params: []Param{{Name: "down", Doc: "the seconds of virtual time requests are refused", Values: []int{1, 5, 30},
			Min: 0, Max: 3600, Range: "seconds an apiserver may take to come back: 0 to 3600"}},
		Codes: []Code{{42, []int{1}}, {43, []int{5}}, {44, []int{30}}},
		Do: func(d Decision) string {
			return fmt.Sprintf("restart the apiserver: close every watch, refuse connections for %d s, start its watch caches anew", d.Params["down"])
		},
		Did:        "apiserver restarted at %s",
		FailsLists: true, Persists: PersistsLegal, PersistsWhy: "an apiserver that crash-loops (a client must back off; it cannot converge meanwhile)"},

	// breaking: violates the watch contract; a client may diverge
	{Name: Reorder, Class: Breaking, Point: FramePoint,
		Codes: []Code{{N: 34}},
		Doc:   "the next two events are sent in swapped order",
		Do:    fixed("swap the next two events"), Did: "%s swapped with the next event",
		Persists: PersistsBreaking, PersistsWhy: "it breaks the watch contract however long it lasts"},
	{Name: Duplicate, Class: Breaking, Point: FramePoint,
		Codes: []Code{{N: 35}},
		Doc:   "the event is sent twice",
		Do:    fixed("send the event twice"), Did: "%s sent twice",
		Persists: PersistsBreaking, PersistsWhy: "it breaks the watch contract however long it lasts"},
	{Name: DropEvent, Class: Breaking, Point: FramePoint,
		Codes: []Code{{N: 36}},
		Doc:   "the event is not sent; the stream goes on",
		Do:    fixed("drop the event"), Did: "%s dropped",
		Persists: PersistsBreaking, PersistsWhy: "it breaks the watch contract however long it lasts"},
	{Name: RVRegress, Class: Breaking, Point: FramePoint,
		Codes: []Code{{N: 37}},
		Doc:   "the event carries a resourceVersion older than the one before it",
		Do:    fixed("send the event with an older resourceVersion"), Did: "%s sent with an older resourceVersion",
		Persists: PersistsBreaking, PersistsWhy: "it breaks the watch contract however long it lasts"},
	{Name: BookmarkRegress, Class: Breaking, Point: FramePoint,
		Codes: []Code{{N: 38}},
		Doc:   "a BOOKMARK with a resourceVersion older than the last sent is inserted before the frame",
		Do:    fixed("insert a BOOKMARK with an older resourceVersion"), Did: "older BOOKMARK inserted before %s",
		Persists: PersistsBreaking, PersistsWhy: "it breaks the watch contract however long it lasts"},
	{Name: GarbleFrame, Class: Breaking, Point: FramePoint,
		Codes: []Code{{N: 39}},
		Doc:   "an invalid JSON frame is sent in place of the frame (the frame follows it, undecodable after it), and the stream ends: client-go stops reading at a frame it cannot decode",
		Do:    fixed("send invalid JSON in its place"), Did: "%s garbled",
		Unrecordable: true,
		Persists:     PersistsBreaking, PersistsWhy: "it breaks the watch contract however long it lasts"},
	{Name: MissingInitialEventsEnd, Class: Breaking, Point: WatchPoint,
		Codes: []Code{{N: 40}},
		Doc:   "a WatchList stream never sends its initial-events-end bookmark",
		Do:    fixed("never send the initial-events-end BOOKMARK"), Did: "%s sent no initial-events-end BOOKMARK",
		Persists: PersistsBreaking, PersistsWhy: "it breaks the watch contract however long it lasts"},
}

// fixed is a Do func for a fault whose words do not depend on its
// parameters.
func fixed(s string) func(Decision) string {
	return func(Decision) string { return s }
}

// count renders "1 event", "5 events".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
