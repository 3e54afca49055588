package replayer

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// scaleHistories holds generated histories by size, built once per run.
var scaleHistories sync.Map

// scaleHistory returns the history of a generated cassette of configmaps
// and pods: objects in the initial state, then events changes.
func scaleHistory(tb testing.TB, objects, events int) *history.History {
	tb.Helper()
	key := [2]int{objects, events}
	if h, ok := scaleHistories.Load(key); ok {
		return h.(*history.History)
	}
	h := testutil.SynthHistory(tb, objects, events)
	scaleHistories.Store(key, h)
	return h
}

// listAll LISTs target page by page (limit 500, as client-go's reflector
// pages) and returns the bytes and pages answered. It reads only each
// answer's metadata, so that the server's work is what a benchmark times.
func listAll(tb testing.TB, s *Server, target string) (size, pages int) {
	tb.Helper()
	cont := ""
	for {
		u := target + "?limit=500"
		if cont != "" {
			u += "&continue=" + url.QueryEscape(cont)
		}
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, u, nil))
		body := rec.Body.Bytes()
		var a struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
		}
		i := bytes.Index(body, []byte(`,"items":[`))
		if rec.Code != http.StatusOK || i < 0 || json.Unmarshal(append(body[:i:i], '}'), &a) != nil {
			tb.Fatalf("LIST %s: got %d %.200s, want a 200 list", u, rec.Code, body)
		}
		size += len(body)
		pages++
		if cont = a.Metadata.Continue; cont == "" {
			return size, pages
		}
	}
}

// BenchmarkListPaged is a paged LIST (limit 500) of every pod, and one of
// the pods of one namespace. The generated history has 20k objects and
// 200k events, served at its final state.
func BenchmarkListPaged(b *testing.B) {
	h := scaleHistory(b, 20_000, 200_000)
	s := New(h)
	l, _ := h.Log(history.Resource{Version: "v1", Resource: "pods"})
	s.store.advance(l, l.End())
	for _, target := range []string{"/api/v1/pods", "/api/v1/namespaces/default/pods"} {
		b.Run(target, func(b *testing.B) {
			var size, pages int
			for range b.N {
				size, pages = listAll(b, s, target)
			}
			b.SetBytes(int64(size))
			b.ReportMetric(float64(pages), "pages/op")
		})
	}
}

// BenchmarkAvailablePaced is what a request (and each event a paced watch
// waits for) asks under a recorded pace. It asks which events of a log of
// 100k events the clock has reached. The pace is set for every one of
// them to be reached within a few milliseconds.
func BenchmarkAvailablePaced(b *testing.B) {
	h := scaleHistory(b, 20_000, 200_000)
	l, _ := h.Log(history.Resource{Version: "v1", Resource: "pods"})
	span := l.Events[l.End()-1].At
	s := New(h, WithPace(Pace{Mode: PaceRecorded, Factor: float64(span / time.Millisecond)}))
	for s.store.available(l) < l.End() {
		time.Sleep(time.Millisecond)
	}
	b.ResetTimer()
	for range b.N {
		if n := s.store.available(l); n != l.End() {
			b.Fatalf("available: got %d, want %d", n, l.End())
		}
	}
}

// frameCounter is a watch client that reads nothing but counts frames,
// and leaves (cancels the request) after want of them.
type frameCounter struct {
	header http.Header
	frames int
	want   int
	leave  func()
}

func (c *frameCounter) Header() http.Header { return c.header }
func (c *frameCounter) WriteHeader(int)     {}
func (c *frameCounter) Flush()              {}
func (c *frameCounter) Write(p []byte) (int, error) {
	c.frames += bytes.Count(p, []byte("\n"))
	if c.frames >= c.want {
		c.leave()
	}
	return len(p), nil
}

// BenchmarkWatchFrames is a watch of every pod from the start of a log of
// 100k events, served at the maximum pace. It measures its cost per
// event, and the heap it leaves behind once it has ended.
func BenchmarkWatchFrames(b *testing.B) {
	h := scaleHistory(b, 20_000, 200_000)
	l, _ := h.Log(history.Resource{Version: "v1", Resource: "pods"})
	s := New(h)
	target := "/api/v1/pods?watch=true&resourceVersion=" + l.StartRV
	before := testutil.LiveHeap()
	b.ResetTimer()
	for range b.N {
		ctx, cancel := context.WithCancel(context.Background())
		c := &frameCounter{header: http.Header{}, want: l.End(), leave: cancel}
		s.ServeHTTP(c, httptest.NewRequest(http.MethodGet, target, nil).WithContext(ctx))
		cancel()
		if c.frames != l.End() {
			b.Fatalf("watch: got %d frames, want %d", c.frames, l.End())
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*l.End()), "ns/event")
	b.ReportMetric(float64(int64(testutil.LiveHeap())-int64(before))/float64(l.End()), "retained-B/event")
}

// BenchmarkGet is a GET of one pod of a generated history of 20k objects
// and 200k events, at its final state.
func BenchmarkGet(b *testing.B) {
	h := scaleHistory(b, 20_000, 200_000)
	s := New(h)
	l, _ := h.Log(history.Resource{Version: "v1", Resource: "pods"})
	s.store.advance(l, l.End())
	state := l.StateAt(l.End())
	o := state[len(state)/2]
	target := "/api/v1/namespaces/" + o.Namespace + "/pods/" + o.Name
	b.ResetTimer()
	for range b.N {
		rec := httptest.NewRecorder()
		s.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, target, nil))
		if rec.Code != http.StatusOK {
			b.Fatalf("GET %s: got %d, want 200", target, rec.Code)
		}
	}
}

// BenchmarkWatchListInitial is a WatchList of every pod of a generated
// history of 20k objects and 200k events, at its final state. It sends
// its initial events and their end bookmark, then the client leaves.
func BenchmarkWatchListInitial(b *testing.B) {
	h := scaleHistory(b, 20_000, 200_000)
	l, _ := h.Log(history.Resource{Version: "v1", Resource: "pods"})
	s := New(h)
	s.store.advance(l, l.End())
	want := len(l.StateAt(l.End())) + 1
	const target = "/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
	before := testutil.LiveHeap()
	b.ResetTimer()
	for range b.N {
		ctx, cancel := context.WithCancel(context.Background())
		c := &frameCounter{header: http.Header{}, want: want, leave: cancel}
		s.ServeHTTP(c, httptest.NewRequest(http.MethodGet, target, nil).WithContext(ctx))
		cancel()
		if c.frames != want {
			b.Fatalf("WatchList: got %d frames, want %d", c.frames, want)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*want), "ns/object")
	b.ReportMetric(float64(int64(testutil.LiveHeap())-int64(before))/float64(want), "retained-B/object")
}
