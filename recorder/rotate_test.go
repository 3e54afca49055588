package recorder

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

func TestRotatedName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		n    int
		want string
	}{
		{name: "rotated name - first - pass", n: 1, want: "dir/incident_001.yaml"},
		{name: "rotated name - 999th - pass", n: 999, want: "dir/incident_999.yaml"},
		{name: "rotated name - 1000th - pass", n: 1000, want: "dir/incident_z1000.yaml"},
		{name: "rotated name - 10000th - pass", n: 10000, want: "dir/incident_zz10000.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := rotatedName("dir/incident.yaml", tt.n); got != tt.want {
				t.Errorf("rotatedName: got %q, want %q", got, tt.want)
			}
		})
	}
	t.Run("rotated names - sort in order - pass", func(t *testing.T) {
		names := []string{"dir/incident.yaml"}
		for _, n := range []int{1, 2, 9, 10, 99, 100, 999, 1000, 1001, 9999, 10000, 123456} {
			names = append(names, rotatedName("dir/incident.yaml", n))
		}
		sorted := append([]string(nil), names...)
		sort.Strings(sorted)
		if strings.Join(sorted, " ") != strings.Join(names, " ") {
			t.Errorf("sorted: got %q, want %q", sorted, names)
		}
	})
}

func rotationUpstream(t *testing.T, watchURI string, lead []string, withList bool) (map[string]answer, *history.History) {
	t.Helper()
	list := cmList("10", cmItem("ns", "a", "8", "0"), cmItem("ns", "b", "9", "0"))
	parts := append([]string(nil), lead...)
	for k := range 40 {
		parts = append(parts, event("MODIFIED", cmObject("ns", []string{"a", "b"}[k%2], fmt.Sprint(11+k), strings.Repeat("v", k))))
		if k%10 == 9 {
			parts = append(parts, bookmark(fmt.Sprint(11+k), false))
		}
	}
	answers := map[string]answer{listURI: {code: 200, parts: []string{list}}, watchURI: {code: 200, parts: parts}}
	f := &cassette.File{Path: "upstream.yaml"}
	if withList {
		f.Add(cassette.Interaction{Method: "GET", URL: testHost + listURI, Code: 200, Body: []byte(list)})
	}
	f.Add(cassette.Interaction{Method: "GET", URL: testHost + watchURI, Code: 200, Body: []byte(strings.Join(parts, ""))})
	h, err := history.Build(f)
	if err != nil {
		t.Fatalf("upstream history: got error %v, want none", err)
	}
	return answers, h
}

func TestRotation(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		uri  string
		lead []string // frames before the live events
		list bool     // a LIST comes first
	}{
		{name: "rotation - LIST then watch from its RV - files build the upstream history - pass", uri: watchURI, list: true},
		{name: "rotation - WatchList across files - initial events stay whole, continues from the last RV - pass", uri: watchListURI,
			lead: []string{event("ADDED", cmObject("ns", "a", "8", "0")), event("ADDED", cmObject("ns", "b", "9", "0")), bookmark("10", true)}},
		{name: "rotation - watch from RV 0 across files - leading ADDED run stays whole - pass",
			uri:  "/api/v1/configmaps?allowWatchBookmarks=true&resourceVersion=0&watch=true",
			lead: []string{event("ADDED", cmObject("ns", "b", "9", "0")), event("ADDED", cmObject("ns", "a", "8", "0"))}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answers, want := rotationUpstream(t, tt.uri, tt.lead, tt.list)
			dir := t.TempDir()
			rec, err := New(filepath.Join(dir, "incident.yaml"), WithFlushInterval(0), WithMaxSize(900))
			if err != nil {
				t.Fatalf("New: got error %v, want none", err)
			}
			rt := rec.Wrap(&upstream{answers: answers})
			if tt.list {
				readAll(t, get(t, rt, listURI, nil), 512)
			}
			resp := get(t, rt, tt.uri, nil)
			readN(t, resp.Body, len(answers[tt.uri].parts)-3, 4096) // the last frames are still to come at Close
			if err := rec.Close(); err != nil {
				t.Fatalf("Close: got error %v, want none", err)
			}
			resp.Body.Close()
			files, got := loadDir(t, dir)
			if len(files) < 3 {
				t.Errorf("files: got %d, want at least 3", len(files))
			}
			var names []string
			for _, f := range files {
				names = append(names, f.Path)
				if _, err := cassette.Load(f.Path); err != nil {
					t.Errorf("load %s alone: got error %v, want none", f.Path, err)
				}
			}
			if st := rec.Stats(); strings.Join(st.Files, " ") != strings.Join(names, " ") {
				t.Errorf("Stats.Files: got %q, want %q", st.Files, names)
			}
			// the upstream history without the last frames the client never read
			wl := want.Logs[0]
			trimmed := *wl
			trimmed.Events = wl.Events[:len(wl.Events)-2]
			sameLog(t, got.Logs[0], &trimmed)
			continued := 0
			for _, f := range files[1:] {
				for _, it := range f.Interactions {
					if strings.Contains(it.URL, "watch=true") && !strings.Contains(it.URL, "sendInitialEvents") && !strings.Contains(it.URL, "resourceVersion=0&") {
						continued++
					}
				}
			}
			if continued == 0 {
				t.Errorf("continued watch interactions after the first file: got 0, want some")
			}
		})
	}
}

func (r *Recorder) rotateNow() error {
	r.saveMu.Lock()
	defer r.saveMu.Unlock()
	return r.rotateLocked()
}

func TestRotationMovesUnsplittable(t *testing.T) {
	t.Parallel()
	other := "/api/v1/secrets?limit=500&resourceVersion=0"
	tests := []struct {
		name  string
		uri   string
		lead  []string // read before the rotation: no split point yet
		rest  []string // read after it
		start string   // the recorded history's start
	}{
		{name: "rotation - WatchList inside its initial events - moves whole to the next file - pass", uri: watchListURI,
			lead:  []string{event("ADDED", cmObject("ns", "a", "8", "0"))},
			rest:  []string{event("ADDED", cmObject("ns", "b", "9", "0")), bookmark("10", true), event("MODIFIED", cmObject("ns", "a", "11", "1"))},
			start: "10"},
		{name: "rotation - watch from RV 0 inside its leading ADDED run - moves whole to the next file - pass",
			uri:   "/api/v1/configmaps?allowWatchBookmarks=true&resourceVersion=0&watch=true",
			lead:  []string{event("ADDED", cmObject("ns", "b", "9", "0"))},
			rest:  []string{event("ADDED", cmObject("ns", "a", "8", "0")), event("MODIFIED", cmObject("ns", "a", "11", "1"))},
			start: "9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			rec, err := New(filepath.Join(dir, "incident.yaml"), WithFlushInterval(0))
			if err != nil {
				t.Fatalf("New: got error %v, want none", err)
			}
			up := &upstream{answers: map[string]answer{
				tt.uri: {code: 200, parts: append(append([]string(nil), tt.lead...), tt.rest...)},
				other:  {code: 200, parts: []string{`{"kind":"SecretList","apiVersion":"v1","metadata":{"resourceVersion":"10"},"items":[]}`}},
			}}
			rt := rec.Wrap(up)
			resp := get(t, rt, tt.uri, nil)
			readN(t, resp.Body, len(tt.lead), 4096)
			readAll(t, get(t, rt, other, nil), 512)
			if err := rec.rotateNow(); err != nil {
				t.Fatalf("rotate: got error %v, want none", err)
			}
			readAll(t, resp, 4096)
			if err := rec.Close(); err != nil {
				t.Fatalf("Close: got error %v, want none", err)
			}
			first := interactions(t, filepath.Join(dir, "incident.yaml"))
			if len(first) != 1 || !strings.Contains(first[0].URL, "secrets") {
				t.Errorf("first file: got %d interactions, want only the secrets list", len(first))
			}
			second := interactions(t, filepath.Join(dir, "incident_001.yaml"))
			if len(second) != 1 || second[0].URL != testHost+tt.uri || len(second[0].FrameOffsets) != len(tt.lead)+len(tt.rest) {
				t.Errorf("second file: got %d interactions, want the whole watch", len(second))
			}
			_, h := loadDir(t, dir)
			l, ok := h.Log(history.Resource{Version: "v1", Resource: "configmaps"})
			if !ok || l.StartRV != tt.start || len(l.Events) != 1 {
				t.Errorf("history: got %v, want start %s and 1 event", logSummary(l), tt.start)
			}
		})
	}
}

func TestBeforeSave(t *testing.T) {
	tests := []struct {
		name    string
		hooks   []func(*cassette.Interaction)
		want    string // every interaction's Replay in every file
		rotates bool
	}{
		{name: "before save - no hook - interactions unmarked - pass", want: ""},
		{name: "before save - MarkVerbatim - every interaction of every rotated file marked - pass",
			hooks: []func(*cassette.Interaction){cassette.MarkVerbatim}, want: cassette.ReplayVerbatim, rotates: true},
		{name: "before save - hooks in order - the last word stays - pass",
			hooks: []func(*cassette.Interaction){cassette.MarkVerbatim, func(i *cassette.Interaction) { i.Replay = "" }}, want: ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			answers, _ := rotationUpstream(t, watchURI, nil, true)
			dir := t.TempDir()
			opts := []Option{WithFlushInterval(0), WithMaxSize(900)}
			for _, h := range tt.hooks {
				opts = append(opts, WithBeforeSave(h))
			}
			rec, err := New(filepath.Join(dir, "incident.yaml"), opts...)
			if err != nil {
				t.Fatalf("New: got error %v, want none", err)
			}
			rt := rec.Wrap(&upstream{answers: answers})
			readAll(t, get(t, rt, listURI, nil), 512)
			resp := get(t, rt, watchURI, nil)
			readN(t, resp.Body, len(answers[watchURI].parts), 4096)
			if err := rec.Flush(); err != nil {
				t.Fatalf("Flush: got error %v, want none", err)
			}
			if err := rec.Close(); err != nil {
				t.Fatalf("Close: got error %v, want none", err)
			}
			resp.Body.Close()
			files, _ := loadDir(t, dir)
			if tt.rotates && len(files) < 2 {
				t.Errorf("files: got %d, want a rotation (at least 2)", len(files))
			}
			n := 0
			for _, f := range files {
				for k, it := range f.Interactions {
					n++
					if it.Replay != tt.want {
						t.Errorf("%s: interaction %d: Replay got %q, want %q", f.Path, k, it.Replay, tt.want)
					}
				}
			}
			if n == 0 {
				t.Errorf("interactions: got none, want the recorded traffic")
			}
			if got, want := cassette.IsVerbatim(files...), tt.want == cassette.ReplayVerbatim; got != want {
				t.Errorf("IsVerbatim: got %v, want %v", got, want)
			}
		})
	}
}
