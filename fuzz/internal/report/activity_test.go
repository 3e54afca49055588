package report

import (
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

func TestWriteRows(t *testing.T) {
	ws := make([]history.WriteAnswer, 6)
	for i := range ws {
		ws[i] = history.WriteAnswer{At: time.Duration(i) * time.Second, Verb: "update", Resource: history.Resource{Version: "v1", Resource: "configmaps"}, Key: "a/p", RVBefore: "7", RVAfter: "7", Code: 409, Reason: "Conflict"}
	}
	line := func(i int) string { return "  " + ws[i].String() + "\n" }
	tests := []struct {
		name       string
		writes     []history.WriteAnswer
		head, tail int
		want       string
	}{
		{name: "write timeline - none - empty - pass", head: 2, tail: 1, want: ""},
		{name: "write timeline - fewer than head and tail - every write - pass", writes: ws[:3], head: 2, tail: 1, want: line(0) + line(1) + line(2)},
		{name: "write timeline - more - head, how many between, tail - pass", writes: ws, head: 2, tail: 1,
			want: line(0) + line(1) + "  … 3 more …\n" + line(5)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := writeRows(tc.writes, tc.head, tc.tail); got != tc.want {
				t.Errorf("writeRows: got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestActivitySummary(t *testing.T) {
	reqs := []observe.Request{{Verb: "LIST", Resource: "configmaps"}, {At: time.Second, Verb: "POST", Resource: "configmaps"},
		{At: 2 * time.Second, Verb: "PUT", Resource: "configmaps"}, {At: 3 * time.Second, Verb: "PUT", Resource: "configmaps"}}
	tests := []struct {
		name string
		o    *observe.Observation
		want string
	}{
		{name: "activity - a reader - no writes part - pass",
			o:    &observe.Observation{Requests: reqs[:1], SyncedAt: 0},
			want: "requests: configmaps: LIST ×1 from 0s to 0s (1 starts over); synced: 0s"},
		{name: "activity - a writer, one update refused - write verbs counted, writes by answer - pass",
			o: &observe.Observation{Requests: reqs, SyncedAt: 0, Writes: []history.WriteAnswer{
				{Verb: "create", Code: 201}, {Verb: "update", Code: 200}, {Verb: "update", Code: 409, Reason: "Conflict"}}},
			want: "requests: configmaps: LIST ×1, POST ×1, PUT ×2 from 0s to 3s (1 starts over); synced: 0s; " +
				"writes: create ×1 (201 ×1), update ×2 (200 ×1, 409 Conflict ×1)"},
		{name: "activity - status writes and a dry run - apart - pass",
			o: &observe.Observation{SyncedAt: -1, Writes: []history.WriteAnswer{
				{Verb: "update", Subresource: "status", Code: 200}, {Verb: "create", Code: 201, DryRun: true}}},
			want: "requests: none; synced: never; writes: update/status ×1 (200 ×1), create ×1 (201 dry run ×1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := activitySummary(tc.o); got != tc.want {
				t.Errorf("activitySummary: got %q, want %q", got, tc.want)
			}
		})
	}
}
