package replayer

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

const testHost = "http://replay.invalid"

func configMap(ns, name string, labels map[string]string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels}}
}

// smallHistory is the configmap history most watch tests replay:
//
//	initial state at 1003: ns1/a@1001 app=x, ns1/b@1002 app=y, ns2/c@1003 app=x
//	1004 MODIFIED ns1/a (app=x)
//	1005 ADDED    ns1/d (app=x)
//	1006 MODIFIED ns1/b (app y→x)
//	1007 MODIFIED ns1/a (app x→y)
//	1008 DELETED  ns1/d
//	1009 DELETED  ns2/c
//
// final state: ns1/a@1007, ns1/b@1006.
func smallHistory(t testing.TB) *history.History {
	t.Helper()
	b := synth.NewBuilder()
	a := configMap("ns1", "a", map[string]string{"app": "x"})
	bb := configMap("ns1", "b", map[string]string{"app": "y"})
	c := configMap("ns2", "c", map[string]string{"app": "x"})
	b.Add(a)
	b.Add(bb)
	b.Add(c)
	b.Snapshot()
	a.Data = map[string]string{"k": "1"}
	b.Update(a)
	d := configMap("ns1", "d", map[string]string{"app": "x"})
	b.Add(d)
	bb.Labels = map[string]string{"app": "x"}
	b.Update(bb)
	a.Labels = map[string]string{"app": "y"}
	b.Update(a)
	b.Delete(d)
	b.Delete(c)
	h, err := b.History()
	if err != nil {
		t.Fatalf("small history: got error %v, want none", err)
	}
	return h
}

func TestWatchWire(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		opts   []Option
		target string
		golden string
	}{
		{
			name:   "watch - from the start with bookmarks until the timeout - pass",
			target: "/api/v1/configmaps?watch=true&resourceVersion=1003&allowWatchBookmarks=true&timeoutSeconds=150",
			golden: "watch_bookmarks.golden",
		},
		{
			name:   "watch - label selector moves objects in and out - pass",
			target: "/api/v1/configmaps?watch=true&resourceVersion=1003&labelSelector=app%3Dx&timeoutSeconds=5",
			golden: "watch_selector.golden",
		},
		{
			name:   "watch - resourceVersion 0 is defaulted to initial events - pass",
			target: "/api/v1/configmaps?watch=true&resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=5",
			golden: "watch_legacy.golden",
		},
		{
			name:   "watch - resourceVersion before the compaction point - pass",
			opts:   []Option{WithCompaction("1005")},
			target: "/api/v1/configmaps?watch=true&resourceVersion=1004&allowWatchBookmarks=true",
			golden: "watch_too_old.golden",
		},
		{
			name:   "watchlist - initial events, end bookmark, live events - pass",
			target: "/api/v1/namespaces/ns1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=10",
			golden: "watchlist_stream.golden",
		},
		{
			name:   "watchlist - resourceVersion beyond the history - pass",
			target: "/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&resourceVersion=5000",
			golden: "watchlist_too_large.golden",
		},
		{
			name:   "watchlist - no resourceVersionMatch - fail",
			target: "/api/v1/configmaps?watch=true&sendInitialEvents=true&allowWatchBookmarks=true",
			golden: "watchlist_invalid.golden",
		},
	}
	h := smallHistory(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := New(h, tt.opts...)
				st := readStream(t, srv.Transport(), tt.target)
				if st.err != nil {
					t.Fatalf("read body: got error %v, want EOF", st.err)
				}
				checkGolden(t, tt.golden, wireResponse(tt.target, st.resp, st.body))
			})
		})
	}
}

// TestWatchWireRealServer checks that a real HTTP server carries the same
// answer as the in-process transport, chunked.
func TestWatchWireRealServer(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		opts   []Option
		target string
		golden string
	}{
		{
			name:   "watch over a socket - resourceVersion before the compaction point - pass",
			opts:   []Option{WithCompaction("1005")},
			target: "/api/v1/configmaps?watch=true&resourceVersion=1004&allowWatchBookmarks=true",
			golden: "watch_too_old.golden",
		},
		{
			name:   "watchlist over a socket - no resourceVersionMatch - fail",
			target: "/api/v1/configmaps?watch=true&sendInitialEvents=true&allowWatchBookmarks=true",
			golden: "watchlist_invalid.golden",
		},
	}
	h := smallHistory(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ts := httptest.NewServer(New(h, tt.opts...))
			defer ts.Close()
			resp, err := ts.Client().Get(ts.URL + tt.target)
			if err != nil {
				t.Fatalf("GET: got error %v, want an answer", err)
			}
			defer resp.Body.Close()
			body, err := io.ReadAll(resp.Body)
			if err != nil {
				t.Fatalf("read body: got error %v, want none", err)
			}
			checkGolden(t, tt.golden, wireResponse(tt.target, resp, body))
		})
	}
}

func TestWatchEvents(t *testing.T) {
	t.Parallel()
	const (
		all   = "/api/v1/configmaps?watch=true&timeoutSeconds=1"
		wl    = "/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1"
		drain = "/api/v1/configmaps?watch=true&resourceVersion=1003&timeoutSeconds=1"
	)
	events := []string{"MODIFIED ns1/a@1004", "ADDED ns1/d@1005", "MODIFIED ns1/b@1006", "MODIFIED ns1/a@1007", "DELETED ns1/d@1008", "DELETED ns2/c@1009"}
	initial := []string{"ADDED ns1/a@1001", "ADDED ns1/b@1002", "ADDED ns2/c@1003"}
	tests := []struct {
		name     string
		opts     []Option
		prime    []string // requests read to their end first
		accept   string   // the Accept header, if set
		target   string
		wantCode int
		want     []string
	}{
		{name: "watch from the start RV - no selector - pass", target: all + "&resourceVersion=1003", wantCode: 200, want: events},
		{name: "watch from the start RV - label selector app=x - pass", target: all + "&resourceVersion=1003&labelSelector=app%3Dx", wantCode: 200,
			want: []string{"MODIFIED ns1/a@1004", "ADDED ns1/d@1005", "ADDED ns1/b@1006", "DELETED ns1/a@1007", "DELETED ns1/d@1008", "DELETED ns2/c@1009"}},
		{name: "watch from the start RV - label selector app=y - pass", target: all + "&resourceVersion=1003&labelSelector=app%3Dy", wantCode: 200,
			want: []string{"DELETED ns1/b@1006", "ADDED ns1/a@1007"}},
		{name: "watch from the start RV - label selector app!=x,app!=y - pass", target: all + "&resourceVersion=1003&labelSelector=app%21%3Dx%2Capp%21%3Dy", wantCode: 200, want: []string{}},
		{name: "watch from the start RV - namespace ns2 - pass", target: "/api/v1/namespaces/ns2/configmaps?watch=true&timeoutSeconds=1&resourceVersion=1003", wantCode: 200,
			want: []string{"DELETED ns2/c@1009"}},
		{name: "watch from the start RV - field selector metadata.name=a - pass", target: all + "&resourceVersion=1003&fieldSelector=metadata.name%3Da", wantCode: 200,
			want: []string{"MODIFIED ns1/a@1004", "MODIFIED ns1/a@1007"}},
		{name: "watch of one object - from the start RV - pass", target: "/api/v1/namespaces/ns1/configmaps/a?watch=true&timeoutSeconds=1&resourceVersion=1003", wantCode: 200,
			want: []string{"MODIFIED ns1/a@1004", "MODIFIED ns1/a@1007"}},
		{name: "watch of one object - legacy /watch/ path - pass", target: "/api/v1/watch/namespaces/ns1/configmaps/d?timeoutSeconds=1&resourceVersion=1003", wantCode: 200,
			want: []string{"ADDED ns1/d@1005", "DELETED ns1/d@1008"}},
		{name: "watch from a middle RV - no selector - pass", target: all + "&resourceVersion=1006", wantCode: 200, want: events[3:]},
		{name: "watch from an RV between events - no selector - pass", target: all + "&resourceVersion=1005", wantCode: 200, want: events[2:]},
		{name: "watch from the last RV - no selector - pass", target: all + "&resourceVersion=1009", wantCode: 200, want: []string{}},
		{name: "watch from RV \"\" - initial state at the head, then events - pass", target: all, wantCode: 200, want: append(append([]string{}, initial...), events...)},
		{name: "watch from RV 0 with bookmarks - defaulted to initial events - pass", target: all + "&resourceVersion=0&allowWatchBookmarks=true", wantCode: 200,
			want: append(append(append([]string{}, initial...), "BOOKMARK@1003 end"), events...)},
		{name: "watch from RV \"\" - head moved by an earlier watch - pass", prime: []string{drain}, target: all + "&allowWatchBookmarks=true", wantCode: 200,
			want: []string{"ADDED ns1/a@1007", "ADDED ns1/b@1006", "BOOKMARK@1009 end"}},
		{name: "watch with sendInitialEvents=false from RV \"\" - events from the head, no state - pass",
			target: all + "&sendInitialEvents=false&resourceVersionMatch=NotOlderThan", wantCode: 200, want: events},
		{name: "watch from an RV older than the history - ERROR 410 - fail", target: all + "&resourceVersion=1000", wantCode: 200,
			want: []string{"ERROR 410 too old resource version: 1000 (1003)"}},
		{name: "watch from an RV before the compaction point - ERROR 410 - fail", opts: []Option{WithCompaction("1005")}, target: all + "&resourceVersion=1004", wantCode: 200,
			want: []string{"ERROR 410 too old resource version: 1004 (1005)"}},
		{name: "watch from the compaction point - events after it - pass", opts: []Option{WithCompaction("1005")}, target: all + "&resourceVersion=1005", wantCode: 200, want: events[2:]},
		{name: "watch from RV \"\" with a compaction point - initial state there, then events - pass", opts: []Option{WithCompaction("1005")}, target: all, wantCode: 200,
			want: append([]string{"ADDED ns1/a@1004", "ADDED ns1/b@1002", "ADDED ns1/d@1005", "ADDED ns2/c@1003"}, events[2:]...)},
		{name: "watchlist from an RV older than the compaction point - state at the compaction point - pass", opts: []Option{WithCompaction("1005")}, target: wl + "&resourceVersion=1004", wantCode: 200,
			want: append([]string{"ADDED ns1/a@1004", "ADDED ns1/b@1002", "ADDED ns1/d@1005", "ADDED ns2/c@1003", "BOOKMARK@1005 end"}, events[2:]...)},
		{name: "watch from an RV beyond the history - silent until the timeout - pass", target: all + "&resourceVersion=5000&allowWatchBookmarks=true", wantCode: 200, want: []string{}},
		{name: "watch from an unknown RV - 400 - fail", target: all + "&resourceVersion=abc", wantCode: 400},
		{name: "watch with a bad label selector - 400 - fail", target: all + "&resourceVersion=1003&labelSelector=%3D%3D", wantCode: 400},
		{name: "watch with resourceVersionMatch and no sendInitialEvents - 422 - fail", target: all + "&resourceVersion=1003&resourceVersionMatch=NotOlderThan", wantCode: 422},
		{name: "watch asking for CBOR only - 406 - fail", target: all + "&resourceVersion=1003", accept: "application/cbor", wantCode: 406},
		{name: "watchlist from RV \"\" - state at the head - pass", target: wl, wantCode: 200,
			want: append(append(append([]string{}, initial...), "BOOKMARK@1003 end"), events...)},
		{name: "watchlist from a middle RV - state there - pass", target: wl + "&resourceVersion=1006", wantCode: 200,
			want: []string{"ADDED ns1/a@1004", "ADDED ns1/b@1006", "ADDED ns1/d@1005", "ADDED ns2/c@1003", "BOOKMARK@1006 end", "MODIFIED ns1/a@1007", "DELETED ns1/d@1008", "DELETED ns2/c@1009"}},
		{name: "watchlist from a middle RV - head is newer - pass", prime: []string{drain}, target: wl + "&resourceVersion=1006", wantCode: 200,
			want: []string{"ADDED ns1/a@1007", "ADDED ns1/b@1006", "BOOKMARK@1009 end"}},
		{name: "watchlist from an RV older than the history - state at the head - pass", target: wl + "&resourceVersion=1000", wantCode: 200,
			want: append(append(append([]string{}, initial...), "BOOKMARK@1003 end"), events...)},
		{name: "watchlist with a label selector - selected state and events - pass", target: wl + "&labelSelector=app%3Dy", wantCode: 200,
			want: []string{"ADDED ns1/b@1002", "BOOKMARK@1003 end", "DELETED ns1/b@1006", "ADDED ns1/a@1007"}},
		{name: "watchlist without bookmarks - no end bookmark - pass", target: "/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1&resourceVersion=1009", wantCode: 200,
			want: []string{"ADDED ns1/a@1007", "ADDED ns1/b@1006"}},
		{name: "watchlist from an RV beyond the history - ERROR 504 - fail", target: wl + "&resourceVersion=5000", wantCode: 200,
			want: []string{"ERROR 504 Timeout: Too large resource version: 5000, current: 1009"}},
		{name: "watchlist from an unknown RV - 400 - fail", target: wl + "&resourceVersion=abc", wantCode: 400},
		{name: "watchlist with resourceVersionMatch=Exact - 422 - fail", target: "/api/v1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=Exact&resourceVersion=1003", wantCode: 422},
	}
	h := smallHistory(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := New(h, tt.opts...)
				rt := srv.Transport()
				for _, p := range tt.prime {
					readStream(t, rt, p)
				}
				if tt.accept != "" {
					rt = acceptOnly{rt, tt.accept}
				}
				st := readStream(t, rt, tt.target)
				if st.resp.StatusCode != tt.wantCode {
					t.Fatalf("status: got %d, want %d (body %s)", st.resp.StatusCode, tt.wantCode, st.body)
				}
				if tt.want == nil {
					return
				}
				if got := frameStrings(st.frames); !equalStrings(got, tt.want) {
					t.Errorf("frames:\ngot  %q\nwant %q", got, tt.want)
				}
			})
		})
	}
}

// acceptOnly sets the Accept header of every request.
type acceptOnly struct {
	rt     http.RoundTripper
	accept string
}

func (a acceptOnly) RoundTrip(req *http.Request) (*http.Response, error) {
	req = req.Clone(req.Context())
	req.Header.Set("Accept", a.accept)
	return a.rt.RoundTrip(req)
}
