package faultstest

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/internal/testutil"
)

// noWatchList is the ListWatch of a client that does not support WatchList
// semantics: a reflector over it lists and then watches. A non-zero
// pageSize replaces the limit of paginated LISTs, as a reflector's
// WatchListPageSize would.
type noWatchList struct {
	*cache.ListWatch
	pageSize int64
}

// IsWatchListSemanticsUnSupported opts the reflector out of WatchList.
func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// ListWithContext lists, with the scenario's page size.
func (lw *noWatchList) ListWithContext(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
	if lw.pageSize > 0 && o.Limit > 0 {
		o.Limit = lw.pageSize
	}
	return lw.ListWatch.ListWithContext(ctx, o)
}

// List lists, with the scenario's page size.
func (lw *noWatchList) List(o metav1.ListOptions) (runtime.Object, error) {
	return lw.ListWithContext(context.Background(), o)
}

// requestLog wraps a RoundTripper and notes every LIST and WATCH request;
// cut ends the answer to the n-th watch (1-based) after that many lines.
type requestLog struct {
	rt  http.RoundTripper
	cut map[int]int

	mu      sync.Mutex
	reqs    []string
	watches int
}

// RoundTrip notes the request and forwards it.
func (l *requestLog) RoundTrip(req *http.Request) (*http.Response, error) {
	if !strings.HasSuffix(req.URL.Path, "/configmaps") {
		return l.rt.RoundTrip(req)
	}
	q := req.URL.Query()
	watch := q.Get("watch") == "true" || q.Get("watch") == "1"
	l.mu.Lock()
	l.reqs = append(l.reqs, describe(q))
	n := 0
	if watch {
		l.watches++
		n = l.watches
	}
	lines := l.cut[n]
	l.mu.Unlock()
	resp, err := l.rt.RoundTrip(req)
	if err == nil && watch && lines > 0 {
		resp.Body = testutil.CutBody(resp, lines)
	}
	return resp, err
}

// describe renders a request: "LIST rv=0 limit=500", "LIST continue",
// "WATCHLIST rv=", "WATCH rv=142".
func describe(q url.Values) string {
	switch {
	case q.Get("sendInitialEvents") == "true":
		return "WATCHLIST rv=" + q.Get("resourceVersion")
	case q.Get("watch") != "":
		return "WATCH rv=" + q.Get("resourceVersion")
	case q.Get("continue") != "":
		return "LIST continue limit=" + q.Get("limit")
	}
	return "LIST rv=" + q.Get("resourceVersion") + " limit=" + q.Get("limit")
}

func (l *requestLog) list() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.reqs...)
}

// count returns how many requests start with prefix.
func count(reqs []string, prefix string) int {
	n := 0
	for _, r := range reqs {
		if strings.HasPrefix(r, prefix) {
			n++
		}
	}
	return n
}
