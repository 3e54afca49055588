package capture

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/recorder"
	"github.com/lwreplay/lwreplay/replayer"
)

// checkInformers reports informers that did not reach want's final state.
func checkInformers(t *testing.T, want *history.History, p Progress) {
	t.Helper()
	if len(p.Resources) != len(want.Logs) {
		t.Fatalf("progress: got %d resources, want %d", len(p.Resources), len(want.Logs))
	}
	for _, r := range p.Resources {
		l, ok := want.Log(history.Resource{Group: r.Target.GVR.Group, Version: r.Target.GVR.Version, Resource: r.Target.GVR.Resource})
		if !ok {
			t.Errorf("resource %s: got an informer for it, want none", r.Target)
			continue
		}
		if c, ok := l.Order().Compare(r.LastSyncRV, lastEventRV(l)); !r.Synced || !ok || c < 0 {
			t.Errorf("resource %s: got synced %v at RV %q, want synced at or after %s", r.Target, r.Synced, r.LastSyncRV, lastEventRV(l))
		}
		if n := len(l.StateAt(l.End())); r.Objects != n {
			t.Errorf("resource %s: got %d objects in the store, want %d", r.Target, r.Objects, n)
		}
		if r.LastError != "" {
			t.Errorf("resource %s: got error %q, want none", r.Target, r.LastError)
		}
	}
}

// requestCount is how many requests of a kind each resource must get.
type requestCount struct {
	kind  string
	match func(q url.Values) bool
	n     int
}

func isWatchList(q url.Values) bool { return q.Get("sendInitialEvents") == "true" }

func isList(q url.Values) bool { return q.Get("watch") == "" }

func isFirstPageOf7(q url.Values) bool {
	return isList(q) && q.Get("limit") == "7" && q.Get("continue") == "" && q.Get("resourceVersion") == ""
}

func isNextPageOf7(q url.Values) bool {
	return isList(q) && q.Get("limit") == "7" && q.Get("continue") != ""
}

// TestRun runs informers against a replayed history, without a recorder,
// in virtual time, and checks what they asked and where they ended.
func TestRun(t *testing.T) {
	tests := []struct {
		name     string
		mode     WatchListMode
		pageSize int64
		want     []requestCount
	}{
		{"run - watchlist on - pass", WatchListOn, 0, []requestCount{{"watchlist", isWatchList, 1}, {"list", isList, 0}}},
		{"run - watchlist off - pass", WatchListOff, 0, []requestCount{{"watchlist", isWatchList, 0}, {"list", isList, 1}}},
		{"run - pages of 7 - pass", WatchListAuto, 7, []requestCount{{"watchlist", isWatchList, 0},
			{"first page", isFirstPageOf7, 1}, {"next page", isNextPageOf7, 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				want := generatedHistory(t)
				reports := 0
				cfg := restConfigFor(replayer.New(want))
				requests := logRequests(cfg)
				p, err := Run(context.Background(), Config{
					RestConfig: cfg,
					Resources:  []string{"configmaps", "pods"},
					WatchList:  tc.mode,
					PageSize:   tc.pageSize,
					Duration:   time.Minute,
					Progress:   func(Progress) { reports++ },
				})
				if err != nil {
					t.Fatalf("Run: got %v, want no error", err)
				}
				checkInformers(t, want, p)
				if reports < 60 {
					t.Errorf("progress reports: got %d, want at least 60 (one a second for a minute)", reports)
				}
				for _, res := range []string{"configmaps", "pods"} {
					for _, w := range tc.want {
						if got := requests.count(res, w.match); got != w.n {
							t.Errorf("%s: got %d %s requests, want %d", res, got, w.kind, w.n)
						}
					}
				}
			})
		})
	}
}

// TestRunRecorded records informers' traffic and checks the cassette's
// history ends in the upstream's final state.
func TestRunRecorded(t *testing.T) {
	tests := []struct {
		name      string
		mode      WatchListMode
		pageSize  int64
		wantLists func(n int) bool // recorded LIST pages per resource
		wantDesc  string
	}{
		{"record - watchlist on - pass", WatchListOn, 0, func(n int) bool { return n == 0 }, "none"},
		{"record - watchlist off - pass", WatchListOff, 0, func(n int) bool { return n == 1 }, "1"},
		{"record - pages of 7 - pass", WatchListOff, 7, func(n int) bool { return n >= 3 }, "at least 3"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				want := generatedHistory(t)
				dir := t.TempDir()
				rec, err := recorder.New(filepath.Join(dir, "out.yaml"))
				if err != nil {
					t.Fatal(err)
				}
				p, err := Run(context.Background(), Config{
					RestConfig: restConfigFor(replayer.New(want)),
					Resources:  []string{"cm", "po"},
					WatchList:  tc.mode,
					PageSize:   tc.pageSize,
					Duration:   time.Minute,
					Recorder:   rec,
				})
				if err != nil {
					t.Fatalf("Run: got %v, want no error", err)
				}
				if err := rec.Close(); err != nil {
					t.Fatalf("Close: got %v, want no error", err)
				}
				checkInformers(t, want, p)
				files, err := cassette.LoadAll(dir)
				if err != nil {
					t.Fatalf("load recorded cassette: %v", err)
				}
				got, err := history.Build(files...)
				if err != nil {
					t.Fatalf("build recorded history: %v", err)
				}
				compareFinalStates(t, want, got)
				for _, l := range got.Logs {
					if !tc.wantLists(l.Lists) {
						t.Errorf("resource %s: got %d LIST pages recorded, want %s", l.Resource, l.Lists, tc.wantDesc)
					}
				}
				if _, ok := got.Discovery["/api"]; !ok {
					t.Errorf("discovery: got no /api answer recorded, want one")
				}
			})
		})
	}
}

func TestRunErrors(t *testing.T) {
	srv := replayer.New(mixedHistory(t))
	tests := []struct {
		name    string
		config  Config
		wantErr error
	}{
		{"run - no rest config - fail", Config{Resources: []string{"pods"}}, ErrConfig},
		{"run - no resources - fail", Config{RestConfig: restConfigFor(srv)}, ErrConfig},
		{"run - negative page size - fail", Config{RestConfig: restConfigFor(srv), Resources: []string{"pods"}, PageSize: -1}, ErrConfig},
		{"run - bad watchlist mode - fail", Config{RestConfig: restConfigFor(srv), Resources: []string{"pods"}, WatchList: "sometimes"}, ErrConfig},
		{"run - unknown resource - fail", Config{RestConfig: restConfigFor(srv), Resources: []string{"frobs"}}, ErrUnknownResource},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Run(context.Background(), tc.config)
			if !errors.Is(err, tc.wantErr) {
				t.Errorf("got %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func TestParseWatchListMode(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    WatchListMode
		wantErr error
	}{
		{"watchlist mode - empty is auto - pass", "", WatchListAuto, nil},
		{"watchlist mode - on - pass", "on", WatchListOn, nil},
		{"watchlist mode - off - pass", "off", WatchListOff, nil},
		{"watchlist mode - unknown - fail", "true", "", ErrConfig},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseWatchListMode(tc.in)
			if got != tc.want || !errors.Is(err, tc.wantErr) {
				t.Errorf("got %q, %v; want %q, %v", got, err, tc.want, tc.wantErr)
			}
		})
	}
}
