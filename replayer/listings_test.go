package replayer

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

var configMaps = history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true}

func TestFirstListing(t *testing.T) {
	tests := []struct {
		name     string
		plan     string
		requests []string // "{continue}" takes the previous answer's token
		wantRV   string
		wantOK   bool
	}{
		{name: "first listing - nothing asked - none - pass"},
		{name: "first listing - a one-page LIST - its rv - pass", requests: []string{fList0}, wantRV: "1003", wantOK: true},
		{name: "first listing - first page of a chain only - none - pass", requests: []string{fPage1}},
		{name: "first listing - a whole chain of pages - the chain's rv - pass", requests: []string{fPage1, fPage2}, wantRV: "1003", wantOK: true},
		{name: "first listing - a later listing - the first stays - pass", requests: []string{fList0, fListAll}, wantRV: "1003", wantOK: true},
		{name: "first listing - a WatchList reaching its bookmark - the bookmark's rv - pass", requests: []string{fWatchList}, wantRV: "1003", wantOK: true},
		{name: "first listing - a WatchList never ending its initial events - none - pass", plan: "missing-initial-events-end",
			requests: []string{fWatchList}},
		{name: "first listing - a WatchList cut before its bookmark - none - pass", plan: "close-watch:after=1", requests: []string{fWatchList}},
		{name: "first listing - the last page answered 503 - none - pass", plan: "http-error:code=503,page=2", requests: []string{fPage1, fPage2}},
		{name: "first listing - a watch of events only - none - pass", requests: []string{fWatch}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := faults.ParseText(tc.plan)
			if err != nil {
				t.Fatalf("plan %q: %v", tc.plan, err)
			}
			synctest.Test(t, func(t *testing.T) {
				srv := New(smallHistory(t), WithPlan(plan))
				cont := ""
				for _, target := range tc.requests {
					a := fetch(t, srv.Transport(), strings.ReplaceAll(target, "{continue}", cont))
					var list answer
					if json.Unmarshal(a.body, &list) == nil {
						cont = list.Metadata.Continue
					}
				}
				rv, ok := srv.FirstListing(configMaps)
				if rv != tc.wantRV || ok != tc.wantOK {
					t.Errorf("FirstListing: got %q, %v, want %q, %v", rv, ok, tc.wantRV, tc.wantOK)
				}
			})
		})
	}
}

func TestVerbatimFirstListing(t *testing.T) {
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
			v, err := NewVerbatim(file)
			if err != nil {
				t.Fatalf("NewVerbatim: got error %v, want none", err)
			}
			for _, target := range tc.requests {
				if a := fetch(t, v.Transport(), target); a.resp.StatusCode != 200 {
					t.Fatalf("GET %s: got HTTP %d, want 200", target, a.resp.StatusCode)
				}
			}
			rv, ok := v.FirstListing(configMaps)
			if rv != tc.wantRV || ok != tc.wantOK {
				t.Errorf("FirstListing: got %q, %v, want %q, %v", rv, ok, tc.wantRV, tc.wantOK)
			}
		})
	}
}
