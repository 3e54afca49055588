package fuzz

import (
	"errors"
	"fmt"
	"net/http"
	"runtime/debug"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/lwreplay/lwreplay/history"
)

// defaultMaxRequests is how many requests a run's target may make when
// Options.MaxRequests does not say: client-go's reflector backs off to
// 0.22 requests a second while it makes no progress, some 330 requests in
// the longest run, and re-watches at once after each clean close.
const defaultMaxRequests = 1000

// errRequestBound is what a request past the run's bound gets, once the
// run is over.
var errRequestBound = errors.New("lwreplay: the run's request bound was reached")

// requestBound counts a target's requests per resource and holds every
// request past the bound until the run ends. Virtual time stands still
// while a goroutine loops without blocking — a target that reconnects in
// a loop would keep a run from ever ending — so the request that crosses
// the bound records its goroutine's stack and blocks: time moves again,
// and the run ends, judged by no-hot-loop.
type requestBound struct {
	next  http.RoundTripper
	max   int
	start time.Time
	stop  <-chan struct{} // closed when the run ends

	mu        sync.Mutex
	total     int
	per       map[string]int // by resource ("configmaps", "deployments.apps"), or path
	trip      string         // the stack of the goroutine that crossed the bound
	trippedAt time.Duration
}

// newRequestBound wraps next with a bound of max requests (0: the
// default) that holds requests past it until stop is closed.
func newRequestBound(next http.RoundTripper, max int, start time.Time, stop <-chan struct{}) *requestBound {
	if max <= 0 {
		max = defaultMaxRequests
	}
	return &requestBound{next: next, max: max, start: start, stop: stop, per: map[string]int{}}
}

// RoundTrip counts req and sends it on, or, past the bound, holds it
// until the run ends.
func (b *requestBound) RoundTrip(req *http.Request) (*http.Response, error) {
	name := req.URL.Path
	if q, ok, err := history.ParseRequest(req.URL); ok && err == nil {
		name = q.Resource.Resource
		if q.Resource.Group != "" {
			name += "." + q.Resource.Group
		}
	}
	b.mu.Lock()
	b.total++
	b.per[name]++
	over := b.total > b.max
	if over && b.trip == "" {
		b.trip, b.trippedAt = string(debug.Stack()), time.Since(b.start)
	}
	b.mu.Unlock()
	if !over {
		return b.next.RoundTrip(req)
	}
	select {
	case <-b.stop:
	case <-req.Context().Done():
		<-b.stop // a loop that cancels and retries must not spin either
	}
	return nil, errRequestBound
}

// tripped reports whether a request crossed the bound.
func (b *requestBound) tripped() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.trip != ""
}

// report returns the requests per resource and, when the bound was
// crossed, what the run saw of it.
func (b *requestBound) report() (per map[string]int, hot *HotLoop) {
	b.mu.Lock()
	defer b.mu.Unlock()
	per = make(map[string]int, len(b.per))
	for k, v := range b.per {
		per[k] = v
	}
	if b.trip == "" {
		return per, nil
	}
	return per, &HotLoop{Bound: b.max, At: b.trippedAt, Stack: b.trip}
}

// HotLoop is what a run saw of a target that crossed its request bound.
type HotLoop struct {
	// Bound is the most requests the run allowed.
	Bound int
	// At is when (virtual time since the start) the bound was crossed.
	At time.Duration
	// Stack is the stack of the goroutine whose request crossed it.
	Stack string
}

// requestCounts renders requests per resource, most first: "configmaps:
// 1001, namespaces: 2".
func requestCounts(per map[string]int) string {
	names := make([]string, 0, len(per))
	for k := range per {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if per[names[i]] != per[names[j]] {
			return per[names[i]] > per[names[j]]
		}
		return names[i] < names[j]
	})
	s := make([]string, len(names))
	for i, k := range names {
		s[i] = fmt.Sprintf("%s: %d", k, per[k])
	}
	return strings.Join(s, ", ")
}
