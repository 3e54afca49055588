package timeline_test

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/timeline"
)

// page is what a rendered page's data script holds, as far as the tests
// look.
type page struct {
	Kinds []string `json:"kinds"`
	Lanes []struct {
		Name string `json:"name"`
		Rows []struct {
			Name  string  `json:"name"`
			Marks [][]any `json:"marks"`
		} `json:"rows"`
	} `json:"lanes"`
	Violation *struct {
		Broken []string `json:"broken"`
		Diff   []string `json:"diff"`
	} `json:"violation"`
}

var dataScript = regexp.MustCompile(`(?s)<script type="application/json" id="data">(.*?)</script>`)

// parsePage checks that html is self-contained and returns its data.
func parsePage(t *testing.T, html string) page {
	t.Helper()
	if ext := ExternalRefs(html); len(ext) > 0 {
		t.Errorf("external references: got %q, want none", ext)
	}
	m := dataScript.FindStringSubmatch(html)
	if m == nil {
		t.Fatalf("data script: got none, want one")
	}
	var p page
	if err := json.Unmarshal([]byte(m[1]), &p); err != nil {
		t.Fatalf("data script: got error %v, want JSON", err)
	}
	return p
}

var refAttr = regexp.MustCompile(`(?i)\b(src|href)\s*=\s*["']?([^"'\s>]*)`)

// ExternalRefs returns every src or href of html that points outside
// the page (anything but a fragment), and every @import or url( of its
// CSS.
func ExternalRefs(html string) []string {
	var out []string
	for _, m := range refAttr.FindAllStringSubmatch(html, -1) {
		if !strings.HasPrefix(m[2], "#") {
			out = append(out, m[0])
		}
	}
	for _, s := range []string{"@import", "url(", "http://", "https://"} {
		for _, line := range strings.Split(html, "\n") {
			if strings.Contains(line, s) && !strings.Contains(line, "http://www.w3.org/2000/svg") {
				out = append(out, strings.TrimSpace(line))
			}
		}
	}
	return out
}

// counts counts a page's marks by kind name and type.
func counts(p page) map[string]int {
	n := map[string]int{}
	for _, l := range p.Lanes {
		for _, r := range l.Rows {
			for _, m := range r.Marks {
				kind := p.Kinds[int(m[0].(float64))]
				n[kind]++
				n[kind+" "+m[1].(string)]++
			}
		}
	}
	return n
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
			got := counts(p)
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
		Requests: []timeline.Request{
			{At: 0, Verb: "LIST", Resource: "configmaps"},
			{At: time.Second, Verb: "WATCH", Resource: "configmaps", RV: "84"},
			{At: 2 * time.Second, Verb: "LIST", Resource: "configmaps"},
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
	got := counts(p)
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
