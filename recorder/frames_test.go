package recorder

import (
	"bytes"
	"encoding/json"
	"io"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// documents splits s into its JSON documents with encoding/json: the
// oracle for the splitter.
func documents(t *testing.T, s string) []string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(s))
	var out []string
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			return out
		} else if err != nil {
			t.Fatalf("oracle: got error %v, want none", err)
		}
		out = append(out, string(raw))
	}
}

// bareEntry is a watch entry of a recorder that is never started: enough
// to drive take and finish directly.
func bareEntry(t *testing.T, uri string, rd *redactor) *entry {
	t.Helper()
	if rd == nil {
		rd = &redactor{}
	}
	r := &Recorder{rd: rd, opts: defaults()}
	u, err := url.Parse(testHost + uri)
	if err != nil {
		t.Fatalf("url %s: got error %v, want none", uri, err)
	}
	q, isResource, err := history.ParseRequestInfo(u)
	if err != nil {
		t.Fatalf("parse %s: got error %v, want none", uri, err)
	}
	return newEntry(r, cassette.Interaction{Method: "GET", URL: u.String(), Code: 200, Started: time.Now()}, q, isResource)
}

// framesOf returns an entry's complete frames.
func framesOf(e *entry) []string {
	var out []string
	for k := range e.frames() {
		out = append(out, string(e.frame(k)))
	}
	return out
}

// chunk cuts s into pieces of n bytes.
func chunk(s string, n int) []string {
	var out []string
	for len(s) > n {
		out = append(out, s[:n])
		s = s[n:]
	}
	return append(out, s)
}

func TestSplitter(t *testing.T) {
	t.Parallel()
	tricky := fixture(t, "tricky_frames.json")
	tests := []struct {
		name   string
		input  string
		chunks func(string) [][]string // ways to cut the input into reads
	}{
		{name: "splitter - braces and escaped quotes in strings, whole input - pass", input: tricky,
			chunks: func(s string) [][]string { return [][]string{{s}} }},
		{name: "splitter - braces and escaped quotes in strings, one byte per read - pass", input: tricky,
			chunks: func(s string) [][]string { return [][]string{chunk(s, 1)} }},
		{name: "splitter - braces and escaped quotes in strings, 7 bytes per read - pass", input: tricky,
			chunks: func(s string) [][]string { return [][]string{chunk(s, 7)} }},
		{name: "splitter - every split of the input in two reads - pass", input: tricky,
			chunks: func(s string) [][]string {
				var all [][]string
				for k := 0; k <= len(s); k++ {
					all = append(all, []string{s[:k], s[k:]})
				}
				return all
			}},
		{name: "splitter - frames with no separator - pass", input: `{"a":1}{"b":[1,{"c":"}"}]}[1,2]{"d":"\\"}`,
			chunks: func(s string) [][]string { return [][]string{{s}, chunk(s, 1), chunk(s, 3)} }},
		{name: "splitter - stray scalars and blank lines between frames - pass", input: "\n\n{\"a\":\"x\"}\n 12 true \r\n{\"b\":null}\n",
			chunks: func(s string) [][]string { return [][]string{{s}, chunk(s, 1)} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := documents(t, strings.NewReplacer(" 12 true ", " ").Replace(tt.input))
			for _, reads := range tt.chunks(tt.input) {
				e := bareEntry(t, "/api/v1/configmaps?watch=true&resourceVersion=10", nil)
				for _, p := range reads {
					e.take([]byte(p), time.Now())
				}
				if got := framesOf(e); strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("frames for reads of %d bytes...: got %q, want %q", len(reads[0]), got, want)
				}
				if e.pending() != 0 {
					t.Errorf("pending bytes after the last frame: got %d, want 0", e.pending())
				}
			}
		})
	}
}

func TestSplitterPartial(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		input    string
		frames   int
		pending  bool
		partials int64
	}{
		{name: "partial frame - cut inside a string - dropped and counted - pass",
			input: event("ADDED", cmObject("ns", "a", "11", "x")) + `{"type":"ADDED","object":{"metadata":{"name":"b}`, frames: 1, pending: true, partials: 1},
		{name: "partial frame - cut after an escape - dropped and counted - pass",
			input: event("ADDED", cmObject("ns", "a", "11", "x")) + `{"type":"ADDED","object":{"data":{"k":"\`, frames: 1, pending: true, partials: 1},
		{name: "partial frame - cut between frames - nothing dropped - pass",
			input: event("ADDED", cmObject("ns", "a", "11", "x")) + "\n  ", frames: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := bareEntry(t, "/api/v1/configmaps?watch=true&resourceVersion=10", nil)
			e.take([]byte(tt.input), time.Now())
			if got := e.pending() > 0; got != tt.pending {
				t.Errorf("pending bytes: got %v, want %v", got, tt.pending)
			}
			e.finish(time.Now(), false)
			if got := len(framesOf(e)); got != tt.frames {
				t.Errorf("frames: got %d, want %d", got, tt.frames)
			}
			if got := e.r.stats.partial.Load(); got != tt.partials {
				t.Errorf("partial frames: got %d, want %d", got, tt.partials)
			}
			if v, _ := e.snapshot(time.Now()); !bytes.HasSuffix(v.Body, []byte("}\n")) {
				t.Errorf("recorded body: got %q, want it to end with a complete frame", v.Body)
			}
		})
	}
}

func TestCountItems(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		body string
		n    int
		ok   bool
	}{
		{name: "count items - configmap list - pass", body: cmList("5", cmItem("a", "x", "3", "}{\"]"), cmItem("a", "y", "4", "[")), n: 2, ok: true},
		{name: "count items - empty list - pass", body: cmList("5"), n: 0, ok: true},
		{name: "count items - items key inside metadata is ignored - pass", body: `{"metadata":{"items":[1,2,3]},"items":[{"a":1}]}`, n: 1, ok: true},
		{name: "count items - string value items is not a key - pass", body: `{"kind":"items","x":["items"],"items":[{"a":{}},{"b":[]},{"c":"]"}]}`, n: 3, ok: true},
		{name: "count items - scalar items - pass", body: `{"items":[1, "a", true ,null,{"x":2}]}`, n: 5, ok: true},
		{name: "count items - pretty printed - pass", body: "{\n  \"items\" : [\n    {\"a\": 1},\n    {\"b\": 2}\n  ]\n}", n: 2, ok: true},
		{name: "count items - a single object - fail", body: cmObject("a", "x", "3", "v"), ok: false},
		{name: "count items - a Status - fail", body: `{"kind":"Status","code":404}`, ok: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := countItems([]byte(tt.body))
			if n != tt.n || ok != tt.ok {
				t.Errorf("countItems: got (%d, %v), want (%d, %v)", n, ok, tt.n, tt.ok)
			}
		})
	}
}

func TestClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		frame string
		want  frameInfo
	}{
		{name: "classify - ADDED, type first - pass", frame: event("ADDED", cmObject("a", "x", "1", "v")), want: frameInfo{typ: history.Added}},
		{name: "classify - MODIFIED, type last - pass", frame: `{"object":{"metadata":{"name":"x"}},"type":"MODIFIED"}`, want: frameInfo{typ: history.Modified}},
		{name: "classify - initial-events-end bookmark - pass", frame: bookmark("9", true), want: frameInfo{typ: history.Bookmark, initialEnd: true}},
		{name: "classify - plain bookmark - pass", frame: bookmark("9", false), want: frameInfo{typ: history.Bookmark}},
		{name: "classify - ERROR - pass", frame: `{"type":"ERROR","object":{"kind":"Status","code":410}}`, want: frameInfo{typ: history.Error}},
		{name: "classify - not JSON - fail", frame: `{"type":`, want: frameInfo{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := classify([]byte(strings.TrimSpace(tt.frame))); got != tt.want {
				t.Errorf("classify: got %+v, want %+v", got, tt.want)
			}
		})
	}
}
