package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/timeline/timelinetest"
)

// TestReportWrites checks a failure's story and timeline list the
// target's writes as the replay answered them: verb, key, resourceVersion
// before → after, code and virtual time.
func TestReportWrites(t *testing.T) {
	cm := history.Resource{Version: "v1", Resource: "configmaps"}
	reqs := []observe.Request{{Verb: "LIST", Resource: "configmaps", Code: 200}, {At: time.Second, Verb: "POST", Resource: "configmaps", Code: 201},
		{At: 2 * time.Second, Verb: "PUT", Resource: "configmaps", Code: 409}}
	writes := []history.WriteAnswer{
		{At: time.Second, Verb: "create", Resource: cm, Key: "a/p-child", RVAfter: "1013", Code: 201, Event: history.Added},
		{At: 2 * time.Second, Verb: "update", Resource: cm, Key: "a/p", RVBefore: "1001", RVAfter: "1001", Code: 409, Reason: "Conflict"},
	}
	tests := []struct {
		name      string
		obs       *observe.Observation
		wantStory []string // lines the story holds, in order
		noStory   string   // what it must not hold
		wantMarks int      // write marks on the timeline
	}{
		{name: "report writes - a reader - requests only, no writes section - pass",
			obs:       &observe.Observation{Requests: reqs[:1], SyncedAt: -1},
			wantStory: []string{"the target's requests (", "  0s LIST configmaps rv=\"\""},
			noStory:   "the target's writes"},
		{name: "report writes - a writer refused a stale update - each write, in order - pass",
			obs: &observe.Observation{Requests: reqs, Writes: writes, SyncedAt: -1},
			wantStory: []string{"the target's requests (", "the target's writes as the replay answered them (virtual time, verb, resource, key, resourceVersion before→after, code):",
				"  1s create configmaps a/p-child rv none→1013 201", "  2s update configmaps a/p rv 1001→1001 409 Conflict"},
			wantMarks: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			story := Activity(tc.obs)
			rest := story
			for _, want := range tc.wantStory {
				i := strings.Index(rest, want)
				if i < 0 {
					t.Fatalf("story: got %q, want it to hold %q (in order)", story, want)
				}
				rest = rest[i+len(want):]
			}
			if tc.noStory != "" && strings.Contains(story, tc.noStory) {
				t.Errorf("story: got %q, want no %q", story, tc.noStory)
			}
			var b bytes.Buffer
			if err := WriteTimeline(&b, tc.obs, nil); err != nil {
				t.Fatalf("WriteTimeline: got error %v, want none", err)
			}
			p, err := timelinetest.Parse(b.String())
			if err != nil {
				t.Fatalf("Parse: got error %v, want the page's data", err)
			}
			if got := p.Counts()["write"]; got != tc.wantMarks {
				t.Errorf("write marks: got %d, want %d", got, tc.wantMarks)
			}
		})
	}
}
