package verbatim

import (
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// testHost is the host the tests' requests and recorded interactions name.
const testHost = "http://replay.invalid"

var configMaps = history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

// fetch GETs target through rt, reads the answer to its end and returns
// its code.
func fetch(t *testing.T, rt http.RoundTripper, target string) int {
	t.Helper()
	resp, err := (&http.Client{Transport: rt}).Get(testHost + target)
	if err != nil {
		t.Fatalf("GET %s: got error %v, want an answer", target, err)
	}
	defer resp.Body.Close()
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Fatalf("GET %s: body: got error %v, want none", target, err)
	}
	return resp.StatusCode
}

func TestFirstListing(t *testing.T) {
	const (
		page1    = "/api/v1/configmaps?limit=1"
		page2    = "/api/v1/configmaps?continue=abc&limit=1"
		wl       = "/api/v1/configmaps?allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&watch=true"
		pageBody = `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"12","continue":"abc"},"items":[]}`
		lastBody = `{"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"12"},"items":[]}`
		wlBody   = `{"type":"ADDED","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","resourceVersion":"11"}}}` + "\n" +
			`{"type":"BOOKMARK","object":{"kind":"ConfigMap","apiVersion":"v1","metadata":{"resourceVersion":"15","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n"
	)
	file := &cassette.File{Path: "repro.yaml"}
	for _, it := range []cassette.Interaction{
		{Method: "GET", URL: testHost + page1, Code: 200, Body: []byte(pageBody)},
		{Method: "GET", URL: testHost + page2, Code: 200, Body: []byte(lastBody)},
		{Method: "GET", URL: testHost + wl, Code: 200, Body: []byte(wlBody), FrameOffsets: []time.Duration{0, 0}, StreamEnd: cassette.EndEOF},
	} {
		it.Replay = cassette.ReplayVerbatim
		file.Add(it)
	}
	tests := []struct {
		name     string
		requests []string
		wantRV   string
		wantOK   bool
	}{
		{name: "verbatim first listing - a first page only - none - pass", requests: []string{page1}},
		{name: "verbatim first listing - a chain's last page - its rv - pass", requests: []string{page1, page2}, wantRV: "12", wantOK: true},
		{name: "verbatim first listing - a WatchList's end bookmark - its rv - pass", requests: []string{wl}, wantRV: "15", wantOK: true},
		{name: "verbatim first listing - WatchList, then a LIST - the first stays - pass", requests: []string{wl, page1, page2}, wantRV: "15", wantOK: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := New(file)
			if err != nil {
				t.Fatalf("New: got error %v, want none", err)
			}
			for _, target := range tc.requests {
				if code := fetch(t, v.Transport(), target); code != http.StatusOK {
					t.Fatalf("GET %s: got HTTP %d, want 200", target, code)
				}
			}
			rv, ok := v.FirstListing(configMaps)
			if rv != tc.wantRV || ok != tc.wantOK {
				t.Errorf("FirstListing: got %q, %v, want %q, %v", rv, ok, tc.wantRV, tc.wantOK)
			}
		})
	}
}
