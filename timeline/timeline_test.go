package timeline_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/timeline"
	"github.com/lwreplay/lwreplay/timeline/timelinetest"
)

// parsePage checks that html is self-contained and returns its data.
func parsePage(t *testing.T, html string) timelinetest.Page {
	t.Helper()
	if ext := timelinetest.ExternalRefs(html); len(ext) > 0 {
		t.Errorf("external references: got %q, want none", ext)
	}
	p, err := timelinetest.Parse(html)
	if err != nil {
		t.Fatalf("Parse: got error %v, want the page's data", err)
	}
	return p
}

func TestWriteHistory(t *testing.T) {
	tests := []struct {
		name  string
		files []string
	}{
		{name: "history - paged LIST cassette - pass", files: []string{"../cassettes/real-configmaps-pods-list-pages.yaml"}},
		{name: "history - WatchList cassette - pass", files: []string{"../cassettes/real-configmaps-pods-watchlist.yaml"}},
		{name: "history - expired cassette - pass", files: []string{"../cassettes/real-configmaps-expired.yaml"}},
		{name: "history - synthetic cassette - pass", files: []string{"../cassettes/synthetic-configmaps-pods.yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			files, err := cassette.LoadAll(tc.files...)
			if err != nil {
				t.Fatalf("LoadAll: got error %v, want none", err)
			}
			h, err := history.Build(files...)
			if err != nil {
				t.Fatalf("Build: got error %v, want none", err)
			}
			var b bytes.Buffer
			if err := timeline.Write(&b, timeline.FromHistory(h, "test"), h.Order()); err != nil {
				t.Fatalf("Write: got error %v, want none", err)
			}
			p := parsePage(t, b.String())
			want := map[string]int{}
			for _, l := range h.Logs {
				want["event"] += len(l.Events)
				want["error"] += len(l.Errors)
				for _, e := range l.Events {
					want["event "+string(e.Type)]++
				}
				for _, m := range l.Marks {
					if m.Type == history.Bookmark {
						want["bookmark"]++
					} else {
						want["page"]++
					}
				}
			}
			want["error"] += len(h.Errors)
			got := p.Counts()
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s marks: got %d, want %d", k, got[k], v)
				}
			}
			if want["event"] == 0 {
				t.Errorf("history events: got none, want a cassette with events")
			}
			if len(p.Lanes) < len(h.Logs) {
				t.Errorf("lanes: got %d, want at least one per resource (%d)", len(p.Lanes), len(h.Logs))
			}
		})
	}
}

func TestWatchListInitialEventsEnd(t *testing.T) {
	files, err := cassette.LoadAll("../cassettes/real-configmaps-pods-watchlist.yaml")
	if err != nil {
		t.Fatalf("LoadAll: got error %v, want none", err)
	}
	h, err := history.Build(files...)
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	got := timeline.FromHistory(h, "")
	n := 0
	for _, l := range got.Lanes {
		for _, r := range l.Rows {
			for _, m := range r.Marks {
				if m.Kind == timeline.KindBookmark && m.Type == "initial-events-end" {
					n++
				}
			}
		}
	}
	if n < len(h.Logs) {
		t.Errorf("initial-events-end bookmarks: got %d, want at least one per resource (%d)", n, len(h.Logs))
	}
}

func TestWriteRun(t *testing.T) {
	files, err := cassette.LoadAll("../cassettes/real-configmaps-pods-list-pages.yaml")
	if err != nil {
		t.Fatalf("LoadAll: got error %v, want none", err)
	}
	h, err := history.Build(files...)
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	run := timeline.Run{
		Title: "run </script><b>",
		Truth: h.Logs[0],
		Requests: []timeline.AnsweredRequest{
			{Request: observe.Request{At: 0, Verb: "LIST", Resource: "configmaps"}},
			{Request: observe.Request{At: time.Second, Verb: "WATCH", Resource: "configmaps", RV: "84"}},
			{Request: observe.Request{At: 2 * time.Second, Verb: "LIST", Resource: "configmaps"}},
		},
		Firings:    []faults.Firing{{Point: faults.Point{Kind: faults.WatchPoint, Request: 1}, Fault: "expire-watch", At: time.Second}},
		Deliveries: []timeline.Delivery{{At: time.Second, Op: "add", Key: "ns/a", RV: "84"}, {At: 3 * time.Second, Op: "delete", Key: "ns/a"}},
		Violation:  &timeline.Violation{At: 4 * time.Second, Broken: []string{"converged: </script>"}, Diff: []string{"extra ns/a (rv 84)"}},
	}
	var b bytes.Buffer
	if err := timeline.Write(&b, timeline.FromRun(run), h.Order()); err != nil {
		t.Fatalf("Write: got error %v, want none", err)
	}
	html := b.String()
	if strings.Count(html, "</script>") != 3 {
		t.Errorf("</script> tags: got %d, want 3 (the data cannot end its script)", strings.Count(html, "</script>"))
	}
	p := parsePage(t, html)
	got := p.Counts()
	want := map[string]int{"request": 3, "request relist": 1, "firing": 1, "delivery": 2, "event": len(h.Logs[0].Events)}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s marks: got %d, want %d", k, got[k], v)
		}
	}
	if p.Violation == nil || len(p.Violation.Diff) != 1 || p.Violation.Broken[0] != "converged: </script>" {
		t.Errorf("violation: got %+v, want the run's", p.Violation)
	}
}
