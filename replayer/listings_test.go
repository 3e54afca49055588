package replayer

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

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
