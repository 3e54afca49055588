package replayer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lwreplay/lwreplay/faults"
)

// Requests the fault tests make of smallHistory.
const (
	// fWatch is a watch from the initial state: six events, then the
	// timeout at 5 s.
	fWatch = "/api/v1/configmaps?watch=true&resourceVersion=1003&timeoutSeconds=5"
	// fWatchB is fWatch with bookmarks: a BOOKMARK@1009 at 3 s.
	fWatchB = fWatch + "&allowWatchBookmarks=true"
	// fWatchList is a WatchList of ns1: two ADDED, the end bookmark, five
	// events, a BOOKMARK@1009 at 8 s, the timeout at 10 s.
	fWatchList = "/api/v1/namespaces/ns1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=10"
	// fList0 is the reflector's first LIST.
	fList0 = "/api/v1/configmaps?resourceVersion=0&limit=500"
	// fListAll moves the server's head to the end of the history.
	fListAll = "/api/v1/configmaps?resourceVersion=1009&resourceVersionMatch=NotOlderThan"
	// fPage1 is the first page of a chain of pages of 2.
	fPage1 = "/api/v1/configmaps?limit=2"
	// fPage2 continues the answer before it.
	fPage2 = "/api/v1/configmaps?limit=2&continue={continue}"
)

// The frames of fWatch without faults.
var watchFrames = []string{
	"MODIFIED ns1/a@1004", "ADDED ns1/d@1005", "MODIFIED ns1/b@1006",
	"MODIFIED ns1/a@1007", "DELETED ns1/d@1008", "DELETED ns2/c@1009",
}

// with returns the strings of a, then b.
func with(a []string, b ...string) []string {
	return append(append([]string(nil), a...), b...)
}

// faultCase is a sequence of requests to a server with a plan; the last
// answer is checked.
type faultCase struct {
	name   string
	plan   string   // text form
	opts   []Option // more server options
	before []string // requests sent first, each read to its end
	target string   // "{continue}" takes the previous answer's token
	want   []string // transcript of the last answer
	golden string   // optional: the last answer on the wire
	fired  []string // "point fault: detail"
	timed  bool     // the transcript shows when each frame came
	// accept is the requests' Accept ("": none, JSON). A protobuf case
	// (protobufCases) wants the JSON case's answers, decoded.
	accept string
}

// answerText is an answer read through the in-process transport.
type answerText struct {
	resp *http.Response
	body []byte
	err  error
	at   []time.Duration // when each line ended
	// protobuf says body was answered in protobuf and is shown decoded,
	// as JSON (asJSON).
	protobuf bool
}

// fetch requests target through rt and reads the answer to its end.
func fetch(t *testing.T, rt http.RoundTripper, target string) answerText {
	t.Helper()
	return fetchAccept(t, rt, target, "")
}

// fetchAccept is fetch with an Accept header (none when ""). A protobuf
// answer is shown decoded, as JSON (asJSON).
func fetchAccept(t *testing.T, rt http.RoundTripper, target, accept string) answerText {
	t.Helper()
	start := time.Now()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, testHost+target, nil)
	if err != nil {
		t.Fatalf("request %s: %v", target, err)
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := rt.RoundTrip(req)
	if err != nil {
		t.Fatalf("GET %s: got error %v, want an answer", target, err)
	}
	defer resp.Body.Close()
	a := answerText{resp: resp}
	buf := make([]byte, 4096)
	for {
		n, err := resp.Body.Read(buf)
		a.body = append(a.body, buf[:n]...)
		for range bytes.Count(buf[:n], []byte("\n")) {
			a.at = append(a.at, time.Since(start))
		}
		if err != nil {
			if err != io.EOF {
				a.err = err
			}
			return asJSON(t, a)
		}
	}
}

// transcript renders an answer one line per item:
//   - an error Status: "HTTP 429 TooManyRequests: message";
//   - a list: "LIST rv 1006: ns1/a@1004 ...";
//   - a watch: one frame string per frame, then "EOF" or "ERR <error>". A
//     frame that does not parse is "INVALID <line>", an unfinished one
//     "PARTIAL <n> bytes".
//
// With timed, frames are prefixed with their time.
func transcript(a answerText, timed bool) []string {
	if a.resp.StatusCode != http.StatusOK {
		var st struct {
			Reason, Message string
		}
		json.Unmarshal(a.body, &st)
		line := fmt.Sprintf("HTTP %d %s: %s", a.resp.StatusCode, st.Reason, st.Message)
		if ra := a.resp.Header.Get("Retry-After"); ra != "" {
			line += " (Retry-After " + ra + ")"
		}
		return []string{line}
	}
	var list answer
	if json.Unmarshal(a.body, &list) == nil && strings.HasSuffix(list.Kind, "List") {
		line := "LIST rv " + list.Metadata.ResourceVersion + ":"
		for _, it := range list.Items {
			line += " " + it.Metadata.Namespace + "/" + it.Metadata.Name + "@" + it.Metadata.ResourceVersion
		}
		if list.Metadata.Continue != "" {
			line += " +continue"
		}
		return []string{line}
	}
	var out []string
	lines := bytes.SplitAfter(a.body, []byte("\n"))
	for i, l := range lines {
		switch {
		case len(l) == 0:
			continue
		case l[len(l)-1] != '\n':
			out = append(out, fmt.Sprintf("PARTIAL %d bytes", len(l)))
			continue
		}
		s := "INVALID " + strings.TrimSpace(string(l))
		if f, err := parseFrame(l); err == nil {
			s = f.String()
		}
		if timed && i < len(a.at) {
			s = "+" + a.at[i].String() + " " + s
		}
		out = append(out, s)
	}
	if a.err != nil {
		return append(out, "ERR "+a.err.Error())
	}
	return append(out, "EOF")
}

// firedStrings renders fired decisions as "point fault: detail".
func firedStrings(fs []faults.Firing) []string {
	out := []string{}
	for _, f := range fs {
		out = append(out, f.Point.String()+" "+f.Fault+": "+f.Detail)
	}
	return out
}

// mustPlan parses a plan's text form, failing t on an error.
func mustPlan(t *testing.T, text string) faults.Plan {
	t.Helper()
	plan, err := faults.ParseText(text)
	if err != nil {
		t.Fatalf("plan %q: %v", text, err)
	}
	return plan
}

// runFaultCase runs a case in a synctest bubble and returns the server and
// the last answer.
func runFaultCase(t *testing.T, tc faultCase) {
	t.Helper()
	plan, err := faults.ParseText(tc.plan)
	if err != nil {
		t.Fatalf("plan %q: %v", tc.plan, err)
	}
	synctest.Test(t, func(t *testing.T) {
		srv := New(smallHistory(t), append([]Option{WithPlan(plan), WithLatency(0)}, tc.opts...)...) // the fault's timing alone, no latency
		srv.opts.tooLargeWait = 0
		cont := ""
		var last answerText
		for _, target := range append(append([]string(nil), tc.before...), tc.target) {
			target = strings.ReplaceAll(target, "{continue}", cont)
			last = fetchAccept(t, srv.Transport(), target, tc.accept)
			var list answer
			if json.Unmarshal(last.body, &list) == nil {
				cont = list.Metadata.Continue
			}
		}
		if tc.accept != "" {
			if !last.protobuf && last.resp.StatusCode == http.StatusOK {
				t.Errorf("answer: got %s, want protobuf", last.resp.Header.Get("Content-Type"))
			}
			if got, want := undetailed(transcript(last, false)), undetailed(tc.want); !equalStrings(got, want) {
				t.Errorf("answer in protobuf:\ngot  %q\nwant %q", got, want)
			}
		} else if got := transcript(last, tc.timed); !equalStrings(got, tc.want) {
			t.Errorf("answer:\ngot  %q\nwant %q", got, tc.want)
		}
		if tc.golden != "" && tc.accept == "" {
			checkGolden(t, tc.golden, wireResponse(tc.target, last.resp, last.body))
		}
		if got := firedStrings(srv.Fired()); !equalStrings(got, tc.fired) {
			t.Errorf("fired:\ngot  %q\nwant %q", got, tc.fired)
		}
	})
}

func TestFaultWire(t *testing.T) {
	t.Parallel()
	tests := []faultCase{
		{name: "drop-bookmark - a periodic bookmark - pass", plan: "drop-bookmark:frame=7", target: fWatchB,
			want: with(watchFrames, "EOF"), fired: []string{"watch #1 frame 7 (BOOKMARK) drop-bookmark: rv 1009"}},
		{name: "drop-bookmark - an event frame is no bookmark - pass", plan: "drop-bookmark:frame=1", target: fWatchB,
			want: with(watchFrames, "BOOKMARK@1009", "EOF"), fired: []string{}},
		{name: "drop-bookmark - the initial-events-end bookmark is never dropped - pass", plan: "drop-bookmark", target: fWatchList,
			want: []string{"ADDED ns1/a@1001", "ADDED ns1/b@1002", "BOOKMARK@1003 end", "MODIFIED ns1/a@1004", "ADDED ns1/d@1005",
				"MODIFIED ns1/b@1006", "MODIFIED ns1/a@1007", "DELETED ns1/d@1008", "EOF"},
			fired: []string{"watch #1 frame 9 (BOOKMARK) drop-bookmark: rv 1009"}},
		{name: "drop-all-bookmarks - WatchList keeps its end bookmark only - pass", plan: "drop-all-bookmarks", target: fWatchList,
			want: []string{"ADDED ns1/a@1001", "ADDED ns1/b@1002", "BOOKMARK@1003 end", "MODIFIED ns1/a@1004", "ADDED ns1/d@1005",
				"MODIFIED ns1/b@1006", "MODIFIED ns1/a@1007", "DELETED ns1/d@1008", "EOF"},
			fired: []string{"watch #1 drop-all-bookmarks: rv \"\""}},
		{name: "drop-all-bookmarks - a watch without bookmarks is left alone - pass", plan: "drop-all-bookmarks", target: fWatch,
			want: with(watchFrames, "EOF"), fired: []string{}},
		{name: "close-watch - after 2 events - pass", plan: "close-watch:after=2", target: fWatchB,
			want: []string{"MODIFIED ns1/a@1004", "ADDED ns1/d@1005", "EOF"}, fired: []string{"watch #1 close-watch: after event 2, rv 1005"}},
		{name: "close-watch - after 2 events - the head moved past them - pass", plan: "close-watch:after=2", before: []string{fWatchB},
			target: "/api/v1/configmaps", want: []string{"LIST rv 1005: ns1/a@1004 ns1/b@1002 ns1/d@1005 ns2/c@1003"},
			fired: []string{"watch #1 close-watch: after event 2, rv 1005"}},
		{name: "expire-watch - after 3 events - the server moved on to its newest state - pass", plan: "expire-watch:after=3", before: []string{fWatchB},
			target: "/api/v1/configmaps", want: []string{"LIST rv 1009: ns1/a@1007 ns1/b@1006"},
			fired: []string{"watch #1 expire-watch: after event 3, rv 1006, compacted to rv 1007"}},
		{name: "close-watch - right after the header - pass", plan: "close-watch:after=0", target: fWatchB,
			want: []string{"EOF"}, golden: "fault_close_watch.golden", fired: []string{"watch #1 close-watch: before any event, rv 1003"}},
		{name: "close-watch - the second watch only - pass", plan: "close-watch:after=1,watch=2", before: []string{fWatch}, target: fWatch,
			want: []string{"MODIFIED ns1/a@1004", "EOF"}, fired: []string{"watch #2 close-watch: after event 1, rv 1004"}},
		{name: "expire-watch - at open - pass", plan: "expire-watch:after=0", target: fWatchB,
			want: []string{"ERROR 410 " + watchExpiredMessage, "EOF"}, golden: "fault_expire_watch.golden",
			fired: []string{"watch #1 expire-watch: at open, rv 1003, compacted to rv 1004"}},
		{name: "expire-watch - after 3 events - pass", plan: "expire-watch:after=3", target: fWatchB,
			want:  []string{"MODIFIED ns1/a@1004", "ADDED ns1/d@1005", "MODIFIED ns1/b@1006", "ERROR 410 " + watchExpiredMessage, "EOF"},
			fired: []string{"watch #1 expire-watch: after event 3, rv 1006, compacted to rv 1007"}},
		{name: "expire-continue - the second page - pass", plan: "expire-continue", before: []string{fPage1}, target: fPage2,
			want: []string{"HTTP 410 Expired: " + continueTooOldMsg}, golden: "fault_expire_continue.golden",
			fired: []string{"LIST #2 page 2 expire-continue: rv 1003, compacted to rv 1004"}},
		{name: "expire-continue - the third page of a chain of pages of 1 - pass", plan: "expire-continue:page=3",
			before: []string{"/api/v1/configmaps?limit=1", "/api/v1/configmaps?limit=1&continue={continue}"},
			target: "/api/v1/configmaps?limit=1&continue={continue}",
			want:   []string{"HTTP 410 Expired: " + continueTooOldMsg}, fired: []string{"LIST #3 page 3 expire-continue: rv 1003, compacted to rv 1004"}},
		{name: "expire-continue - a first page has no token - pass", plan: "expire-continue", target: fPage1,
			want: []string{"LIST rv 1003: ns1/a@1001 ns1/b@1002 +continue"}, fired: []string{}},
		{name: "too-large-rv - the reflector's first LIST - pass", plan: "too-large-rv", target: fList0,
			want:   []string{"HTTP 504 Timeout: Timeout: Too large resource version: 1009, current: 1003 (Retry-After 1)"},
			golden: "fault_too_large_rv.golden", fired: []string{"LIST #1 too-large-rv: rv 1009"}},
		{name: "stale-list - 3 events behind the head - pass", plan: "stale-list:back=3,list=2", before: []string{fListAll}, target: fList0,
			want:  []string{"LIST rv 1006: ns1/a@1004 ns1/b@1006 ns1/d@1005 ns2/c@1003"},
			fired: []string{"LIST #2 stale-list: rv 1006, 3 events back"}},
		{name: "stale-list - below etcd's compaction point: a lagging cache keeps its window - pass", plan: "stale-list:back=10,list=2", opts: []Option{WithCompaction("1005")},
			before: []string{fListAll}, target: fList0,
			want:  []string{"LIST rv 1003: ns1/a@1001 ns1/b@1002 ns2/c@1003"},
			fired: []string{"LIST #2 stale-list: rv 1003, 6 events back"}},
		{name: "stale-list - after a 410 moved the compaction point past the client - pass", plan: "expire-watch:after=0,watch=1 stale-list:back=10,list=2",
			before: []string{fListAll, fWatch}, target: fList0,
			want:  []string{"LIST rv 1003: ns1/a@1001 ns1/b@1002 ns2/c@1003"},
			fired: []string{"watch #1 expire-watch: at open, rv 1003, compacted to rv 1004", "LIST #2 stale-list: rv 1003, 6 events back"}},
		{name: "stale-list - a fresh server has nothing older - pass", plan: "stale-list:back=3", target: fList0,
			want: []string{"LIST rv 1003: ns1/a@1001 ns1/b@1002 ns2/c@1003"}, fired: []string{}},
		{name: "stale-list - only at resourceVersion 0 - pass", plan: "stale-list:back=3,list=2", before: []string{fListAll}, target: fListAll,
			want: []string{"LIST rv 1009: ns1/a@1007 ns1/b@1006"}, fired: []string{}},
		{name: "http-error - 429 on a watch, no Retry-After - pass", plan: "http-error:code=429", target: fWatch,
			want:   []string{"HTTP 429 TooManyRequests: Too many requests, please try again later."},
			golden: "fault_http_error_429.golden", fired: []string{"watch #1 http-error: 429"}},
		{name: "close-after-initial-events - the WatchList ends after its bookmark - pass", plan: "close-after-initial-events", target: fWatchList,
			want:  []string{"ADDED ns1/a@1001", "ADDED ns1/b@1002", "BOOKMARK@1003 end", "EOF"},
			fired: []string{"watch #1 close-after-initial-events: after the initial-events-end bookmark, rv 1003, compacted to rv 1004"}},
		{name: "close-after-initial-events - the re-watch from the bookmark gets 410 - pass", plan: "close-after-initial-events:watch=1",
			before: []string{fWatchList}, target: "/api/v1/namespaces/ns1/configmaps?watch=true&resourceVersion=1003&allowWatchBookmarks=true&timeoutSeconds=5",
			want:  []string{"ERROR 410 too old resource version: 1003 (1004)", "EOF"},
			fired: []string{"watch #1 close-after-initial-events: after the initial-events-end bookmark, rv 1003, compacted to rv 1004"}},
		{name: "close-after-initial-events - a plain watch is served as it was - pass", plan: "close-after-initial-events", target: fWatch,
			want: with(watchFrames, "EOF"), fired: []string{}},
		{name: "throttle - 429 on a watch, Retry-After 4 - pass", plan: "throttle:after=4", target: fWatch,
			want: []string{"HTTP 429 :  (Retry-After 4)"}, golden: "fault_throttle.golden", fired: []string{"watch #1 throttle: 429, Retry-After 4 s"}},
		{name: "throttle - 429 on a LIST, Retry-After 1 - pass", plan: "throttle:after=1", target: fList0,
			want: []string{"HTTP 429 :  (Retry-After 1)"}, fired: []string{"LIST #1 throttle: 429, Retry-After 1 s"}},
		{name: "http-error - 500 on a LIST - pass", plan: "http-error:code=500", target: fList0,
			want:  []string{"HTTP 500 InternalError: Internal error occurred: etcdserver: request timed out"},
			fired: []string{"LIST #1 http-error: 500"}},
		{name: "http-error - 503 on the second LIST only - pass", plan: "http-error:code=503,list=2", before: []string{fList0}, target: fList0,
			want: []string{"HTTP 503 ServiceUnavailable: the server is currently unable to handle the request"}, fired: []string{"LIST #2 http-error: 503"}},
		{name: "http-error - a LIST is not the watch it names - pass", plan: "http-error:code=503,watch=1", target: fList0,
			want: []string{"LIST rv 1003: ns1/a@1001 ns1/b@1002 ns2/c@1003"}, fired: []string{}},
		{name: "reset - in the middle of the third frame - pass", plan: "reset:frame=3", target: fWatch,
			want:  []string{"MODIFIED ns1/a@1004", "ADDED ns1/d@1005", "PARTIAL 122 bytes", "ERR unexpected EOF"},
			fired: []string{"watch #1 frame 3 reset: rv 1006"}},
		{name: "delay - a second before the second frame - pass", plan: "delay:ms=1000,frame=2", target: fWatch, timed: true,
			want: []string{"+0s MODIFIED ns1/a@1004", "+1s ADDED ns1/d@1005", "+1s MODIFIED ns1/b@1006",
				"+1s MODIFIED ns1/a@1007", "+1s DELETED ns1/d@1008", "+1s DELETED ns2/c@1009", "EOF"},
			fired: []string{"watch #1 frame 2 delay: 1000 ms before rv 1005"}},
		{name: "delay - the watch times out first - pass", plan: "delay:ms=65000,frame=1", target: fWatch, timed: true,
			want: []string{"EOF"}, fired: []string{"watch #1 frame 1 delay: 65000 ms before rv 1004"}},
		{name: "watchlist-unsupported - a WatchList request - pass", plan: "watchlist-unsupported", target: fWatchList,
			want: []string{"ERROR 500 " + watchListUnsupportedMsg, "EOF"}, golden: "fault_watchlist_unsupported.golden",
			fired: []string{"watch #1 watchlist-unsupported: ERROR 500"}},
		{name: "watchlist-unsupported - a watch from a resourceVersion is served - pass", plan: "watchlist-unsupported", target: fWatch,
			want: with(watchFrames, "EOF"), fired: []string{}},
		{name: "initial-events-ignored - a WatchList from \"\" gets the state and no initial-events-end bookmark - pass", plan: "initial-events-ignored", target: fWatchList,
			want: []string{"ADDED ns1/a@1001", "ADDED ns1/b@1002", "MODIFIED ns1/a@1004", "ADDED ns1/d@1005",
				"MODIFIED ns1/b@1006", "MODIFIED ns1/a@1007", "DELETED ns1/d@1008", "BOOKMARK@1009", "EOF"},
			fired: []string{"watch #1 initial-events-ignored: rv \"\""}},
		{name: "initial-events-ignored - a WatchList from 1004 gets only the events after it - pass", plan: "initial-events-ignored",
			target: "/api/v1/namespaces/ns1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=1004&timeoutSeconds=10",
			want:   []string{"ADDED ns1/d@1005", "MODIFIED ns1/b@1006", "MODIFIED ns1/a@1007", "DELETED ns1/d@1008", "BOOKMARK@1009", "EOF"},
			fired:  []string{"watch #1 initial-events-ignored: rv 1004"}},
		{name: "initial-events-ignored - a plain watch is served as it was - pass", plan: "initial-events-ignored", target: fWatch,
			want: with(watchFrames, "EOF"), fired: []string{}},
		{name: "opaque-rv - a LIST and a watch see opaque RVs in order - pass", plan: "opaque-rv",
			before: []string{"/api/v1/configmaps"}, target: "/api/v1/configmaps?watch=true&resourceVersion=r000002&timeoutSeconds=5",
			want: []string{"MODIFIED ns1/a@r000003", "ADDED ns1/d@r000004", "MODIFIED ns1/b@r000005",
				"MODIFIED ns1/a@r000006", "DELETED ns1/d@r000007", "DELETED ns2/c@r000008", "EOF"},
			fired: []string{"point -1 opaque-rv: 9 rvs, newest 1009 as r000008"}},
		{name: "opaque-rv - the first LIST - pass", plan: "opaque-rv", target: "/api/v1/configmaps",
			want: []string{"LIST rv r000002: ns1/a@r000000 ns1/b@r000001 ns2/c@r000002"}, fired: []string{"point -1 opaque-rv: 9 rvs, newest 1009 as r000008"}},
		{name: "opaque-rv - the compaction point moves along - pass", plan: "opaque-rv", opts: []Option{WithCompaction("1005")},
			target: "/api/v1/configmaps?watch=true&resourceVersion=r000003",
			want:   []string{"ERROR 410 too old resource version: r000003 (r000004)", "EOF"}, fired: []string{"point -1 opaque-rv: 9 rvs, newest 1009 as r000008"}},
		{name: "recreate - a watch resuming from 1003 - pass", plan: "recreate:object=0", target: fWatch,
			want: []string{"ERROR 410 too old resource version: 1003 (1005)", "EOF"},
			fired: []string{"watch #1 recreate: ns1/a deleted at rv 1004, created at rv 1005 with uid " +
				newUID("00000000-0000-4000-8000-000000001001", "1005") + ", compacted to rv 1005"}},
		{name: "recreate - the relist shows only the result - pass", plan: "recreate:object=5,watch=1", before: []string{fWatch},
			target: "/api/v1/configmaps?resourceVersion=1003",
			want:   []string{"LIST rv 1005: ns1/a@1001 ns1/b@1002 ns2/c@1005"},
			fired: []string{"watch #1 recreate: ns2/c deleted at rv 1004, created at rv 1005 with uid " +
				newUID("00000000-0000-4000-8000-000000001003", "1005") + ", compacted to rv 1005"}},
		{name: "recreate - the next watch sees the later events moved up - pass", plan: "recreate:object=1,watch=1",
			before: []string{fWatch}, target: "/api/v1/configmaps?watch=true&resourceVersion=1005&timeoutSeconds=5",
			want: []string{"MODIFIED ns1/a@1006", "ADDED ns1/d@1007", "MODIFIED ns1/b@1008", "MODIFIED ns1/a@1009",
				"DELETED ns1/d@1010", "DELETED ns2/c@1011", "EOF"},
			fired: []string{"watch #1 recreate: ns1/b deleted at rv 1004, created at rv 1005 with uid " +
				newUID("00000000-0000-4000-8000-000000001002", "1005") + ", compacted to rv 1005"}},
		{name: "recreate - a watch from resourceVersion 0 does not resume - pass", plan: "recreate",
			target: "/api/v1/configmaps?watch=true&resourceVersion=0&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&timeoutSeconds=5",
			want:   with(watchFrames, "EOF"), fired: []string{}},
		{name: "reorder - the second and third events - pass", plan: "reorder:frame=2", target: fWatch,
			want: []string{"MODIFIED ns1/a@1004", "MODIFIED ns1/b@1006", "ADDED ns1/d@1005", "MODIFIED ns1/a@1007",
				"DELETED ns1/d@1008", "DELETED ns2/c@1009", "EOF"},
			fired: []string{"watch #1 frame 2 reorder: rv 1005 sent after rv 1006"}},
		{name: "reorder - initial events - pass", plan: "reorder:frame=1", target: fWatchList,
			want: []string{"ADDED ns1/b@1002", "ADDED ns1/a@1001", "BOOKMARK@1003 end", "MODIFIED ns1/a@1004", "ADDED ns1/d@1005",
				"MODIFIED ns1/b@1006", "MODIFIED ns1/a@1007", "DELETED ns1/d@1008", "BOOKMARK@1009", "EOF"},
			fired: []string{"watch #1 frame 1 reorder: rv 1001 sent after rv 1002"}},
		{name: "reorder - the last event has no next - pass", plan: "reorder:frame=6", target: fWatch,
			want: with(watchFrames, "EOF"), fired: []string{}},
		{name: "duplicate - the second event - pass", plan: "duplicate:frame=2", target: fWatch,
			want:  with(watchFrames[:2], with([]string{"ADDED ns1/d@1005"}, with(watchFrames[2:], "EOF")...)...),
			fired: []string{"watch #1 frame 2 duplicate: rv 1005"}},
		{name: "drop-event - the second event - pass", plan: "drop-event:frame=2", target: fWatch,
			want:  with(watchFrames[:1], with(watchFrames[2:], "EOF")...),
			fired: []string{"watch #1 frame 2 drop-event: rv 1005"}},
		{name: "drop-event - a bookmark is no event - pass", plan: "drop-event:frame=7", target: fWatchB,
			want: with(watchFrames, "BOOKMARK@1009", "EOF"), fired: []string{}},
		{name: "rv-regress - the second event - pass", plan: "rv-regress:frame=2", target: fWatch,
			want:  with(watchFrames[:1], with([]string{"ADDED ns1/d@1003"}, with(watchFrames[2:], "EOF")...)...),
			fired: []string{"watch #1 frame 2 rv-regress: rv 1005 sent as 1003"}},
		{name: "bookmark-regress - before the second event - pass", plan: "bookmark-regress:frame=2", target: fWatch,
			want:  with(watchFrames[:1], with([]string{"BOOKMARK@1003"}, with(watchFrames[1:], "EOF")...)...),
			fired: []string{"watch #1 frame 2 bookmark-regress: rv 1003 before rv 1005"}},
		{name: "garble-frame - the second frame, then the frame itself, and the stream ends - pass", plan: "garble-frame:frame=2", target: fWatch,
			want:   with(watchFrames[:1], `INVALID {"type":"MODIFIED","object":{`, watchFrames[1], "EOF"),
			golden: "fault_garble_frame.golden", fired: []string{"watch #1 frame 2 garble-frame: rv 1005"}},
		{name: "missing-initial-events-end - live events go on - pass", plan: "missing-initial-events-end", target: fWatchList,
			want: []string{"ADDED ns1/a@1001", "ADDED ns1/b@1002", "MODIFIED ns1/a@1004", "ADDED ns1/d@1005",
				"MODIFIED ns1/b@1006", "MODIFIED ns1/a@1007", "DELETED ns1/d@1008", "BOOKMARK@1009", "EOF"},
			fired: []string{"watch #1 missing-initial-events-end: rv \"\""}},
		{name: "missing-initial-events-end - a plain watch has none to miss - pass", plan: "missing-initial-events-end", target: fWatch,
			want: with(watchFrames, "EOF"), fired: []string{}},
		{name: "plan - the first decision that can act fires - pass", plan: "drop-bookmark drop-event:frame=3", target: fWatch,
			want:  with(watchFrames[:2], with(watchFrames[3:], "EOF")...),
			fired: []string{"watch #1 frame 3 drop-event: rv 1006"}},
		{name: "plan - a decision at a point index - pass", plan: "drop-event:at=3", before: []string{fList0}, target: fWatch,
			want:  with(watchFrames[:1], with(watchFrames[2:], "EOF")...),
			fired: []string{"watch #1 frame 2 drop-event: rv 1005"}},
	}
	covered := map[string]bool{}
	for _, tc := range append(tests, protobufCases(tests)...) {
		covered[strings.SplitN(tc.name, " - ", 2)[0]] = true
		t.Run(tc.name, func(t *testing.T) { runFaultCase(t, tc) })
	}
	covered["crash-after-write"] = true    // TestCrashAfterWriteWire: a write point, reached by writes
	covered["graceful-restart"] = true     // TestGracefulRestartWire: it acts on the target, not the answer
	covered["apiserver-restart"] = true    // TestFaultApiserverRestart: it acts on open watches and later requests
	covered["consistent-read-wait"] = true // TestFaultConsistentReadWait: it acts on when the answer comes
	for _, f := range faults.Registry {
		if !covered[f.Name] {
			t.Errorf("fault %s: got no wire test, want one", f.Name)
		}
	}
}
