package oracle

import (
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/history"
)

var (
	configmaps  = history.Resource{Version: "v1", Resource: "configmaps"}
	deployments = history.Resource{Group: "apps", Version: "v1", Resource: "deployments"}
)

func TestWriteString(t *testing.T) {
	tests := []struct {
		name string
		w    Write
		want string
	}{
		{name: "write string - stored update - pass",
			w:    Write{At: 1500 * time.Millisecond, Verb: "update", Resource: configmaps, Key: "a/made", RVBefore: "1013", RVAfter: "1014", Code: 200, Event: history.Modified},
			want: "1.5s update configmaps a/made rv 1013→1014 200"},
		{name: "write string - status update refused - the reason - fail",
			w:    Write{Verb: "update", Subresource: "status", Resource: deployments, Key: "a/web", RVBefore: "7", RVAfter: "7", Code: 409, Reason: "Conflict"},
			want: "0s update/status deployments.apps a/web rv 7→7 409 Conflict"},
		{name: "write string - dry-run create - no rvs - pass",
			w:    Write{Verb: "create", Resource: configmaps, Key: "a/dry", Code: 201, DryRun: true},
			want: "0s create configmaps a/dry rv none→none 201 dry run"},
		{name: "write string - delete - no rv after - pass",
			w:    Write{At: time.Minute, Verb: "delete", Resource: configmaps, Key: "a/made", RVBefore: "9", Code: 200, Event: history.Deleted},
			want: "1m0s delete configmaps a/made rv 9→none 200"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.w.String(); got != tc.want {
				t.Errorf("String: got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestWriteTimeline(t *testing.T) {
	ws := make([]Write, 6)
	for i := range ws {
		ws[i] = Write{At: time.Duration(i) * time.Second, Verb: "update", Resource: configmaps, Key: "a/p", RVBefore: "7", RVAfter: "7", Code: 409, Reason: "Conflict"}
	}
	line := func(i int) string { return "  " + ws[i].String() + "\n" }
	tests := []struct {
		name       string
		writes     []Write
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
			if got := WriteTimeline(tc.writes, tc.head, tc.tail); got != tc.want {
				t.Errorf("WriteTimeline: got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestActivityWrites(t *testing.T) {
	reqs := []Request{{Verb: "LIST", Resource: "configmaps"}, {At: time.Second, Verb: "POST", Resource: "configmaps"},
		{At: 2 * time.Second, Verb: "PUT", Resource: "configmaps"}, {At: 3 * time.Second, Verb: "PUT", Resource: "configmaps"}}
	tests := []struct {
		name string
		o    *Observation
		want string
	}{
		{name: "activity - a reader - no writes part - pass",
			o:    &Observation{Requests: reqs[:1], SyncedAt: 0},
			want: "requests: configmaps: LIST ×1 from 0s to 0s (1 starts over); synced: 0s"},
		{name: "activity - a writer, one update refused - write verbs counted, writes by answer - pass",
			o: &Observation{Requests: reqs, SyncedAt: 0, Writes: []Write{
				{Verb: "create", Code: 201}, {Verb: "update", Code: 200}, {Verb: "update", Code: 409, Reason: "Conflict"}}},
			want: "requests: configmaps: LIST ×1, POST ×1, PUT ×2 from 0s to 3s (1 starts over); synced: 0s; " +
				"writes: create ×1 (201 ×1), update ×2 (200 ×1, 409 Conflict ×1)"},
		{name: "activity - status writes and a dry run - apart - pass",
			o: &Observation{SyncedAt: -1, Writes: []Write{
				{Verb: "update", Subresource: "status", Code: 200}, {Verb: "create", Code: 201, DryRun: true}}},
			want: "requests: none; synced: never; writes: update/status ×1 (200 ×1), create ×1 (201 dry run ×1)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Activity(tc.o); got != tc.want {
				t.Errorf("Activity: got %q, want %q", got, tc.want)
			}
		})
	}
}
