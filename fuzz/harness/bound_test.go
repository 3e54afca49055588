package harness

import (
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// okTransport answers every request 200.
type okTransport struct{}

func (okTransport) RoundTrip(*http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
}

// TestRequestBoundAnswering shows the request bound telling two loops
// apart. One is a sustained rate that answers the garbage collector's
// deletes of the target's objects: a controller making its child again
// for an owner its cache still holds. The other is a loop that retries.
// Both end the run, and only the first is left unjudged by no-hot-loop.
// A burst is judged whatever the collector did.
func TestRequestBoundAnswering(t *testing.T) {
	tests := []struct {
		name          string
		every         time.Duration // between requests
		n             int           // requests sent
		collectEvery  int           // a collector's delete every so many requests (0: none)
		wantAnswering bool
		wantWhy       string
	}{
		{name: "request bound - 15 a second for a minute, nothing collected - fail", every: time.Second / 15, n: 1000,
			wantWhy: "10 a second sustained"},
		{name: "request bound - 15 a second for a minute, a delete collected every 3 - not judged - pass", every: time.Second / 15, n: 1000, collectEvery: 3,
			wantAnswering: true, wantWhy: "10 a second sustained"},
		{name: "request bound - 15 a second for a minute, a delete collected every 20 - fail", every: time.Second / 15, n: 1000, collectEvery: 20,
			wantWhy: "10 a second sustained"},
		{name: "request bound - a burst, a delete collected every request - fail", every: time.Millisecond, n: 300, collectEvery: 1,
			wantWhy: "within 1s of virtual time"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stop := make(chan struct{})
				b := newRequestBound(okTransport{}, 0, 0, time.Now(), stop)
				var collected atomic.Int64
				b.collected = func() int { return int(collected.Load()) }
				for i := range tc.n {
					if b.tripped() {
						break
					}
					if tc.collectEvery > 0 && i%tc.collectEvery == 0 {
						collected.Add(1)
					}
					req, _ := http.NewRequest(http.MethodGet, "http://replay/api/v1/namespaces/ns/configmaps/a", nil)
					go func() { _, _ = b.RoundTrip(req) }()
					time.Sleep(tc.every)
				}
				close(stop)
				synctest.Wait()
				_, hot, end := b.report()
				if end == nil || end.Invariant != "no-hot-loop" {
					t.Errorf("bound end: got %+v, want no-hot-loop", end)
				}
				if hot == nil {
					t.Fatalf("hot loop: got none, want the bound crossed")
				}
				if !strings.Contains(hot.Why, tc.wantWhy) {
					t.Errorf("why: got %q, want it to say %q", hot.Why, tc.wantWhy)
				}
				if got := hot.Answering > 0; got != tc.wantAnswering {
					t.Errorf("answering: got %d, want answering %v", hot.Answering, tc.wantAnswering)
				}
				results, notJudged := oracle.JudgeNames(&observe.Observation{HotLoop: hot}, []string{"no-hot-loop"})
				err, why := results["no-hot-loop"], notJudged["no-hot-loop"]
				if got, want := why != "", tc.wantAnswering; got != want {
					t.Errorf("no-hot-loop: got %v, not judged %q, want not judged %v", err, why, want)
				}
				if tc.wantAnswering && !strings.Contains(why, "in answer to the garbage collector") {
					t.Errorf("no-hot-loop: got not judged %q, want it to name the garbage collector", why)
				}
				if !tc.wantAnswering && !errors.Is(err, oracle.ErrHotLoop) {
					t.Errorf("no-hot-loop: got %v, want %v", err, oracle.ErrHotLoop)
				}
			})
		})
	}
}

// TestRequestBoundFreshInstance sends 15 requests a second for a minute,
// from one instance of the target or from a fresh one every second. A
// process's rate is its own: only the one instance crosses the sustained
// bound. A burst crosses it across instances all the same.
func TestRequestBoundFreshInstance(t *testing.T) {
	tests := []struct {
		name       string
		every      time.Duration // between requests
		n          int           // requests sent
		freshEvery int           // a fresh instance every so many requests (0: none)
		wantTrip   bool
	}{
		{name: "fresh instance - 15 a second for a minute, one instance - fail", every: time.Second / 15, n: 1000, wantTrip: true},
		{name: "fresh instance - 15 a second for a minute, a fresh instance every second - pass", every: time.Second / 15, n: 1000, freshEvery: 15},
		{name: "fresh instance - a burst across fresh instances - fail", every: time.Millisecond, n: 300, freshEvery: 15, wantTrip: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				stop := make(chan struct{})
				b := newRequestBound(okTransport{}, 0, 0, time.Now(), stop)
				for i := range tc.n {
					if b.tripped() {
						break
					}
					if tc.freshEvery > 0 && i > 0 && i%tc.freshEvery == 0 {
						b.freshInstance()
					}
					req, _ := http.NewRequest(http.MethodGet, "http://replay/api/v1/namespaces/ns/configmaps/a", nil)
					go func() { _, _ = b.RoundTrip(req) }()
					time.Sleep(tc.every)
				}
				close(stop)
				synctest.Wait()
				if got := b.tripped(); got != tc.wantTrip {
					_, hot, _ := b.report()
					t.Errorf("tripped: got %v (%+v), want %v", got, hot, tc.wantTrip)
				}
			})
		})
	}
}
