package fuzz

import (
	"errors"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// TestWatchListRestartStorm holds the first real client-go bug lwreplay
// found (kubernetes/kubernetes#140890). The Reflector of client-go 0.37.2
// restarts a WatchList stream that ends before its initial-events-end
// bookmark at once, forever: no backoff, no fallback to LIST. A proxy that
// cuts every stream after a few events (persistent close-watch) is enough.
// On the LIST+WATCH path the same server is harmless; a stream cut after
// the bookmark is too.
//
// A server that does not know sendInitialEvents reaches the same loop
// (initial-events-ignored: kube-apiserver before 1.27, aggregated
// apiservers on an older k8s.io/apiserver). Its plain watch never ends the
// initial events. So every WatchList runs to its timeout and is restarted,
// and the informer never syncs. This is the hang of
// kubernetes#135895/#129408 and the antrea, static-kas and k9s reports;
// the fix of #140902 bounds it.
func TestWatchListRestartStorm(t *testing.T) {
	const neverSyncs = "WatchList never syncs on a server that ignores sendInitialEvents (initial-events-ignored:from=0)"
	cassettes := []string{"../cassettes/real-configmaps-pods-watchlist.yaml"}
	// reported: the shipped known finding turned back on
	c, err := NewCampaign(Options{Cassettes: cassettes, ReportKnown: []string{"kubernetes#140890"}})
	if err != nil {
		t.Fatal(err)
	}
	// by default it is known: counted, not failed
	known, err := NewCampaign(Options{Cassettes: cassettes})
	if err != nil {
		t.Fatal(err)
	}
	input := func(watchList bool, plan string) []byte {
		p, err := faults.ParseText(plan)
		if err != nil {
			t.Fatal(err)
		}
		enc, err := faults.Encode(p)
		if err != nil {
			t.Fatal(err)
		}
		wl := byte(0)
		if watchList {
			wl = 1
		}
		return append([]byte{0, wl}, enc...)
	}
	tests := []struct {
		name    string
		input   []byte
		want    []error // the invariants that break; none: the run passes
		finding string  // a case of the findings × versions table: its name there
		mark    error   // the broken invariant that says the finding reproduced (default: the request storm)
	}{
		{name: "storm - WatchList, every stream cut after 5 events - fail", input: input(true, "close-watch:after=5,from=0"),
			want: []error{oracle.ErrRequestStorm, oracle.ErrNoProgress, oracle.ErrHotLoop}, finding: "WatchList restart storm (close-watch:after=5,from=0)"},
		{name: "storm - WatchList, every stream slower than the watch timeout - fail", input: input(true, "delay:ms=65000,from=0"),
			want: []error{oracle.ErrNoProgress}},
		{name: "storm - WatchList, a server that does not know sendInitialEvents - fail", input: input(true, "initial-events-ignored:from=0"),
			want: []error{oracle.ErrNoProgress}, finding: neverSyncs, mark: oracle.ErrNoProgress},
		{name: "storm - LIST+WATCH, a server that does not know sendInitialEvents - pass", input: input(false, "initial-events-ignored:from=0"),
			finding: neverSyncs, mark: oracle.ErrNoProgress},
		{name: "storm - WatchList, one WatchList served as a plain watch - pass", input: input(true, "initial-events-ignored:at=0")},
		{name: "storm - the found input - fail", input: []byte("\x00\x01\xc5"), want: []error{oracle.ErrRequestStorm, oracle.ErrNoProgress, oracle.ErrHotLoop}},
		{name: "storm - LIST+WATCH, every stream cut after 5 events - pass", input: input(false, "close-watch:after=5,from=0"), finding: "WatchList restart storm (close-watch:after=5,from=0)"},
		{name: "storm - WatchList, one stream cut after 5 events - pass", input: input(true, "close-watch:after=5,at=0")},
		{name: "storm - WatchList streams whole, every later watch closed at once - pass",
			input: input(true, "close-watch:after=0,from=1")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := c.Check(t, tc.input)
			if tc.finding != "" && out.Observation != nil {
				mark, storm := tc.mark, 0
				if mark == nil {
					mark = oracle.ErrRequestStorm
				}
				for _, err := range out.Results {
					if errors.Is(err, mark) {
						storm = 1
					}
				}
				testutil.RecordFinding(t, testutil.Finding{Finding: tc.finding,
					ClientGo: harness.ClientGoVersion(), Gates: testutil.GatesOf(out.Observation.Gates, "WatchListClient"), Reproduced: storm, Runs: 1})
			}
			if len(tc.want) == 0 {
				if out.Failed() {
					t.Fatalf("input %q: got a failure, want none:\n%s", tc.input, out.Report)
				}
				return
			}
			if !out.Failed() {
				t.Fatalf("input %q: got no failure, want %v", tc.input, tc.want)
			}
			if site := out.Signature().Site; site != "k8s.io/client-go/tools/cache.(*Reflector).watchList" {
				t.Errorf("input %q: signature %s: got site %q, want the reflector's watchList", tc.input, out.Signature(), site)
			}
			if k := known.Check(t, tc.input); k.Failed() || k.Known != "kubernetes#140890" {
				t.Errorf("input %q, shipped known findings: got failed %v, known %q, want not failed, known kubernetes#140890:\n%s",
					tc.input, k.Failed(), k.Known, k.Report)
			}
			for _, want := range tc.want {
				found := false
				for _, err := range out.Results {
					found = found || errors.Is(err, want)
				}
				if !found {
					t.Errorf("input %q: got\n%s\nwant an invariant broken with %v", tc.input, out.Report, want)
				}
			}
		})
	}
}
