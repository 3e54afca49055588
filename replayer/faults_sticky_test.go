package replayer

import "testing"

// Requests the sticky-expiry tests make of smallHistory.
const (
	// sWatch1005 is a watch resuming from 1005: four events, then the
	// timeout at 5 s.
	sWatch1005 = "/api/v1/configmaps?watch=true&resourceVersion=1005&timeoutSeconds=5"
	// sExpired1005 is the ERROR a watch from 1005 gets once 1005 is
	// compacted.
	sExpired1005 = "ERROR 410 too old resource version: 1005 (1006)"
	// sListExact1005 is an exact LIST at 1005.
	sListExact1005 = "/api/v1/configmaps?resourceVersion=1005&resourceVersionMatch=Exact"
	// sListNewest is the whole state at 1009, the newest.
	sListNewest = "LIST rv 1009: ns1/a@1007 ns1/b@1006"
)

// sWatch is a watch resuming from rv, with a timeout of 5 s.
func sWatch(rv string) string {
	return "/api/v1/configmaps?watch=true&resourceVersion=" + rv + "&timeoutSeconds=5"
}

// sListLegacyExact is a LIST at 1005 with a limit: exact, as
// kube-apiserver reads it without resourceVersionMatch.
const sListLegacyExact = "/api/v1/configmaps?resourceVersion=1005&limit=2"

// A 410 Expired a fault answers is sticky: the compaction point moves past
// the refused resourceVersion for the rest of the run. Each case here
// answered normally before it was.
func TestFaultStickyExpiry(t *testing.T) {
	t.Parallel()
	expireAt1005 := []string{sWatch1005} // watch #1, answered 410 at open
	openFired := []string{"watch #1 expire-watch: at open, rv 1005, compacted to rv 1006"}
	tests := []faultCase{
		// expire-watch at open
		{name: "expire-watch - at open - a watch from the refused rv - pass", plan: "expire-watch:after=0,watch=1",
			before: expireAt1005, target: sWatch1005, want: []string{sExpired1005, "EOF"},
			golden: "fault_expire_watch_sticky.golden", fired: openFired},
		{name: "expire-watch - at open - a watch from an older rv - pass", plan: "expire-watch:after=0,watch=1",
			before: expireAt1005, target: sWatch("1004"),
			want: []string{"ERROR 410 too old resource version: 1004 (1006)", "EOF"}, fired: openFired},
		{name: "expire-watch - at open - an exact LIST at the refused rv - pass", plan: "expire-watch:after=0,watch=1",
			before: expireAt1005, target: sListExact1005,
			want: []string{"HTTP 410 Expired: " + listTooOldMessage}, fired: openFired},
		{name: "expire-watch - at open - a LIST at the refused rv with a limit is exact - pass", plan: "expire-watch:after=0,watch=1",
			before: expireAt1005, target: sListLegacyExact,
			want: []string{"HTTP 410 Expired: " + listTooOldMessage}, fired: openFired},
		{name: "expire-watch - at open - a LIST not older than the refused rv gets the newest state - pass", plan: "expire-watch:after=0,watch=1",
			before: expireAt1005, target: "/api/v1/configmaps?resourceVersion=1005&resourceVersionMatch=NotOlderThan",
			want: []string{sListNewest}, fired: openFired},
		{name: "expire-watch - at open - a LIST at rv 0 - pass", plan: "expire-watch:after=0,watch=1",
			before: expireAt1005, target: fList0, want: []string{sListNewest}, fired: openFired},
		{name: "expire-watch - at open - a LIST at rv \"\" - pass", plan: "expire-watch:after=0,watch=1",
			before: expireAt1005, target: "/api/v1/configmaps", want: []string{sListNewest}, fired: openFired},
		{name: "expire-watch - at open - a watch from a newer rv - pass", plan: "expire-watch:after=0,watch=1",
			before: expireAt1005, target: sWatch("1006"),
			want: []string{"MODIFIED ns1/a@1007", "DELETED ns1/d@1008", "DELETED ns2/c@1009", "EOF"}, fired: openFired},
		{name: "expire-watch - at open - a WatchList from the refused rv gets the newest state - pass", plan: "expire-watch:after=0,watch=1",
			before: expireAt1005,
			target: "/api/v1/configmaps?watch=true&resourceVersion=1005&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1",
			want:   []string{"ADDED ns1/a@1007", "ADDED ns1/b@1006", "BOOKMARK@1009 end", "EOF"}, fired: openFired},
		{name: "expire-watch - at open - an older refusal does not move the point back - pass",
			plan: "expire-watch:after=0,watch=1 expire-watch:after=0,watch=2", before: []string{sWatch1005, sWatch("1004")},
			target: sWatch1005, want: []string{sExpired1005, "EOF"},
			fired: with(openFired, "watch #2 expire-watch: at open, rv 1004")},
		{name: "expire-watch - at open - the newest state is never compacted - pass", plan: "expire-watch:after=0,watch=1",
			before: []string{sWatch("1009")}, target: sWatch("1009"), want: []string{"EOF"},
			fired: []string{"watch #1 expire-watch: at open, rv 1009, compacted to rv 1009"}},
		{name: "expire-watch - at open - below the newest state is compacted - pass", plan: "expire-watch:after=0,watch=1",
			before: []string{sWatch("1009")}, target: sWatch("1008"),
			want:  []string{"ERROR 410 too old resource version: 1008 (1009)", "EOF"},
			fired: []string{"watch #1 expire-watch: at open, rv 1009, compacted to rv 1009"}},
		{name: "expire-watch - at open - a watch from rv \"\" cannot be too old: not answered 410, compacts nothing - pass", plan: "expire-watch:after=0,watch=1",
			before: []string{"/api/v1/configmaps?watch=true&sendInitialEvents=false&resourceVersionMatch=NotOlderThan&timeoutSeconds=1"},
			target: sWatch("1003"), want: with(watchFrames, "EOF"),
			fired: []string{}},

		// expire-watch mid-stream: the last rv sent is refused
		{name: "expire-watch - after 2 events - a watch from the last rv sent - pass", plan: "expire-watch:after=2,watch=1",
			before: []string{fWatch}, target: sWatch1005, want: []string{sExpired1005, "EOF"},
			fired: []string{"watch #1 expire-watch: after event 2, rv 1005, compacted to rv 1006"}},
		{name: "expire-watch - after 2 events - a watch from the rv it started at - pass", plan: "expire-watch:after=2,watch=1",
			before: []string{fWatch}, target: fWatch, want: []string{"ERROR 410 too old resource version: 1003 (1006)", "EOF"},
			fired: []string{"watch #1 expire-watch: after event 2, rv 1005, compacted to rv 1006"}},
		{name: "expire-watch - after 2 events - a watch from a newer rv - pass", plan: "expire-watch:after=2,watch=1",
			before: []string{fWatch}, target: sWatch("1008"), want: []string{"DELETED ns2/c@1009", "EOF"},
			fired: []string{"watch #1 expire-watch: after event 2, rv 1005, compacted to rv 1006"}},
		{name: "expire-watch - due in a WatchList's initial events - strikes after its initial-events-end bookmark - pass", plan: "expire-watch:after=1,watch=1",
			before: []string{fWatchList}, target: sWatch("1003"), want: []string{"ERROR 410 too old resource version: 1003 (1004)", "EOF"},
			fired: []string{"watch #1 expire-watch: after event 2, rv 1003, compacted to rv 1004"}},
		{name: "expire-watch - opaque RVs compact in their order - pass", plan: "opaque-rv expire-watch:after=0,watch=1",
			before: []string{sWatch("r000004")}, target: sWatch("r000003"),
			want: []string{"ERROR 410 too old resource version: r000003 (r000005)", "EOF"},
			fired: []string{"point -1 opaque-rv: 9 rvs, newest 1009 as r000008",
				"watch #1 expire-watch: at open, rv r000004, compacted to rv r000005"}},

		// expire-continue: the token's rv is refused
		{name: "expire-continue - the same token again - pass", plan: "expire-continue:list=2", before: []string{fPage1, fPage2},
			target: "/api/v1/configmaps?limit=2&continue=" + continueToken{rv: "1003", start: "/ns1/b\x00"}.encode(),
			want:   []string{"HTTP 410 Expired: " + continueTooOldMsg}, fired: []string{"LIST #2 page 2 expire-continue: rv 1003, compacted to rv 1004"}},
		{name: "expire-continue - an exact LIST at the token's rv - pass", plan: "expire-continue:list=2", before: []string{fPage1, fPage2},
			target: "/api/v1/configmaps?resourceVersion=1003&resourceVersionMatch=Exact",
			want:   []string{"HTTP 410 Expired: " + listTooOldMessage}, fired: []string{"LIST #2 page 2 expire-continue: rv 1003, compacted to rv 1004"}},
		{name: "expire-continue - a watch from the token's rv - pass", plan: "expire-continue:list=2", before: []string{fPage1, fPage2},
			target: fWatch, want: []string{"ERROR 410 too old resource version: 1003 (1004)", "EOF"},
			fired: []string{"LIST #2 page 2 expire-continue: rv 1003, compacted to rv 1004"}},
		{name: "expire-continue - a LIST at rv \"\" is not older than the compaction point - pass", plan: "expire-continue:list=2",
			before: []string{fPage1, fPage2}, target: "/api/v1/configmaps",
			want:  []string{"LIST rv 1004: ns1/a@1004 ns1/b@1002 ns2/c@1003"},
			fired: []string{"LIST #2 page 2 expire-continue: rv 1003, compacted to rv 1004"}},
		{name: "expire-continue - a watch from a newer rv - pass", plan: "expire-continue:list=2", before: []string{fPage1, fPage2},
			target: sWatch("1004"), want: with(watchFrames[1:], "EOF"),
			fired: []string{"LIST #2 page 2 expire-continue: rv 1003, compacted to rv 1004"}},

		// recreate: compacted to the new object's rv
		{name: "recreate - a watch from the refused rv again - pass", plan: "recreate:object=0,watch=1", before: []string{fWatch},
			target: fWatch, want: []string{"ERROR 410 too old resource version: 1003 (1005)", "EOF"}, fired: recreatedA},
		{name: "recreate - a watch from the delete's rv - pass", plan: "recreate:object=0,watch=1", before: []string{fWatch},
			target: sWatch("1004"), want: []string{"ERROR 410 too old resource version: 1004 (1005)", "EOF"}, fired: recreatedA},
		{name: "recreate - an exact LIST at the refused rv - pass", plan: "recreate:object=0,watch=1", before: []string{fWatch},
			target: "/api/v1/configmaps?resourceVersion=1003&resourceVersionMatch=Exact",
			want:   []string{"HTTP 410 Expired: " + listTooOldMessage}, fired: recreatedA},
		{name: "recreate - a LIST at rv 0 shows the result - pass", plan: "recreate:object=0,watch=1", before: []string{fWatch},
			target: fList0, want: []string{"LIST rv 1005: ns1/a@1005 ns1/b@1002 ns2/c@1003"}, fired: recreatedA},
	}
	for _, tc := range append(tests, protobufCases(tests)...) {
		t.Run(tc.name, func(t *testing.T) { runFaultCase(t, tc) })
	}
}

// recreatedA is what recreate:object=0 fires at a watch from 1003.
var recreatedA = []string{"watch #1 recreate: ns1/a deleted at rv 1004, created at rv 1005 with uid " +
	newUID("00000000-0000-4000-8000-000000001001", "1005") + ", compacted to rv 1005"}

// A fault that refuses no resourceVersion as expired moves no compaction
// point: the watch resumes from where it was.
func TestFaultStickyOnlyExpiry(t *testing.T) {
	t.Parallel()
	tests := []faultCase{
		{name: "close-watch - after 2 events - the watch resumes - pass", plan: "close-watch:after=2,watch=1",
			before: []string{fWatch}, target: sWatch1005, want: with(watchFrames[2:], "EOF"),
			fired: []string{"watch #1 close-watch: after event 2, rv 1005"}},
		{name: "http-error - 503 on a watch - the watch resumes - pass", plan: "http-error:code=503,watch=1",
			before: []string{fWatch}, target: fWatch, want: with(watchFrames, "EOF"),
			fired: []string{"watch #1 http-error: 503"}},
	}
	for _, tc := range append(tests, protobufCases(tests)...) {
		t.Run(tc.name, func(t *testing.T) { runFaultCase(t, tc) })
	}
}
