package timeline_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/timeline"
)

// TestFromRunWrites checks the target's writes get a row of their own in
// the target's lane, one mark each. Each is typed by how it was answered
// and labelled with verb, resource, key, resourceVersions and code.
func TestFromRunWrites(t *testing.T) {
	configmaps := history.Resource{Version: "v1", Resource: "configmaps"}
	deployments := history.Resource{Group: "apps", Version: "v1", Resource: "deployments"}
	writes := []history.WriteAnswer{
		{At: time.Second, Verb: "create", Resource: configmaps, Key: "a/made", RVAfter: "1013", Code: 201},
		{At: 2 * time.Second, Verb: "update", Resource: configmaps, Key: "a/made", RVBefore: "1013", RVAfter: "1013", Code: 409, Reason: "Conflict"},
		{At: 3 * time.Second, Verb: "update", Subresource: "status", Resource: deployments, Key: "a/web", RVBefore: "7", RVAfter: "1014", Code: 200},
		{At: 4 * time.Second, Verb: "create", Resource: configmaps, Key: "a/dry", Code: 201, DryRun: true},
		{At: 5 * time.Second, Verb: "delete", Resource: configmaps, Key: "a/made", RVBefore: "1013", Code: 200},
	}
	tests := []struct {
		name       string
		writes     []history.WriteAnswer
		wantRows   []string // the target lane's rows
		wantLabels []string // the writes' labels, in order
		wantTypes  map[string]int
	}{
		{name: "run writes - a reader - no writes row - pass",
			wantRows: []string{"requests", "handler deliveries"}},
		{name: "run writes - stored, refused, status, dry run, delete - one mark each - pass", writes: writes,
			wantRows: []string{"requests", "writes (as answered)", "handler deliveries"},
			wantLabels: []string{
				"create configmaps a/made rv none→1013 → HTTP 201",
				"update configmaps a/made rv 1013→1013 → HTTP 409 Conflict",
				"update/status deployments.apps a/web rv 7→1014 → HTTP 200",
				"create configmaps a/dry rv none→none → HTTP 201, dry run",
				"delete configmaps a/made rv 1013→none → HTTP 200",
			},
			wantTypes: map[string]int{"write": 5, "write create": 1, "write refused": 1, "write update": 1, "write dry-run": 1, "write delete": 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := timeline.Write(&b, timeline.FromRun(timeline.Run{Title: "writes", Writes: tc.writes}), nil); err != nil {
				t.Fatalf("Write: got error %v, want none", err)
			}
			p := parsePage(t, b.String())
			var rows, labels []string
			for _, l := range p.Lanes {
				if l.Name != "target" {
					continue
				}
				for _, r := range l.Rows {
					rows = append(rows, r.Name)
					for _, m := range r.Marks {
						if p.Kinds[int(m[0].(float64))] == "write" {
							labels = append(labels, m[5].(string))
						}
					}
				}
			}
			if strings.Join(rows, "|") != strings.Join(tc.wantRows, "|") {
				t.Errorf("target rows: got %q, want %q", rows, tc.wantRows)
			}
			if strings.Join(labels, "|") != strings.Join(tc.wantLabels, "|") {
				t.Errorf("write labels: got %q, want %q", labels, tc.wantLabels)
			}
			got := p.Counts()
			for k, v := range tc.wantTypes {
				if got[k] != v {
					t.Errorf("%s marks: got %d, want %d", k, got[k], v)
				}
			}
		})
	}
}
