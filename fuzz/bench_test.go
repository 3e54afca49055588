package fuzz

import (
	"bytes"
	"io"
	"net/http"
	"testing"
	"testing/synctest"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/util/framer"
	"k8s.io/client-go/kubernetes/scheme"
	restclientwatch "k8s.io/client-go/rest/watch"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/fuzz/targets"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/bubble"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/synth"
)

// The reference cassette of the speed targets: 50 configmaps, then 100
// changes to them.
const (
	refObjects = 50
	refEvents  = 100
)

// referenceHistory builds the reference cassette's history.
func referenceHistory(tb testing.TB) *history.History {
	tb.Helper()
	f, err := synth.Generate(synth.GenerateOptions{Objects: refObjects, Events: refEvents, Seed: 1, Kinds: []string{"configmaps"}})
	if err != nil {
		tb.Fatalf("generate: got error %v, want none", err)
	}
	h, err := history.Build(f)
	if err != nil {
		tb.Fatalf("build: got error %v, want none", err)
	}
	return h
}

// BenchmarkRun measures whole runs per built-in target, level and client
// path, on every core (b.RunParallel). A run replays the reference
// cassette, 15 virtual minutes, no fault. runs/s is the figure the speed
// targets name.
func BenchmarkRun(b *testing.B) {
	benchmarkRuns(b, targets.Builtin)
}

// benchmarkRuns runs each target's whole runs of the reference cassette
// per level and client path, on every core, reporting runs/s.
func benchmarkRuns(b *testing.B, targets []Target) {
	h := referenceHistory(b)
	for _, target := range targets {
		for _, lvl := range []Level{Typed, Wire} {
			for _, watchList := range []bool{true, false} {
				path := "list"
				if watchList {
					path = "watchlist"
				}
				b.Run(target.Name+"/"+lvl.String()+"/"+path, func(b *testing.B) {
					spec := harness.Spec{History: h, Target: target, WatchList: watchList, Level: lvl, Cache: level.NewCache()}
					err := bubble.Host(func(t *testing.T) {
						harness.Observe(t, spec) // warm the decoded answers
						b.ResetTimer()
						b.RunParallel(func(pb *testing.PB) {
							for pb.Next() {
								if obs := harness.Observe(t, spec); obs == nil || obs.ConvergedAt < 0 {
									t.Errorf("run: got no convergence, want one")
								}
							}
						})
					})
					if err != nil {
						b.Fatalf("host: got error %v, want none", err)
					}
					b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
				})
			}
		}
	}
}

// BenchmarkDecodeAlone measures client-go decoding, alone, the bytes a
// wire run of the reference cassette reads. It uses the decoders its
// dynamic client uses. The bytes are the WatchList stream (initial
// events, bookmark, changes), or the LIST body and the watch after it.
// A wire run's cost is judged against it.
func BenchmarkDecodeAlone(b *testing.B) {
	h := referenceHistory(b)
	for _, path := range []string{"watchlist", "list"} {
		b.Run(path, func(b *testing.B) {
			list, stream := answerBytes(b, h, path == "watchlist")
			info, _ := runtime.SerializerInfoForMediaType(scheme.Codecs.WithoutConversion().SupportedMediaTypes(), runtime.ContentTypeJSON)
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if list != nil {
						if _, err := runtime.Decode(unstructured.UnstructuredJSONScheme, list); err != nil {
							b.Errorf("list: got error %v, want none", err)
						}
					}
					fr := framer.NewJSONFramedReader(io.NopCloser(bytes.NewReader(stream)))
					d := restclientwatch.NewDecoder(streaming.NewDecoder(fr, info.StreamSerializer.Serializer), unstructured.UnstructuredJSONScheme)
					n := 0
					for {
						if _, _, err := d.Decode(); err != nil {
							break
						}
						n++
					}
					if n < refEvents {
						b.Errorf("events: got %d, want at least %d", n, refEvents)
					}
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}

// answerBytes returns what a client reads from the replayer for h's
// configmaps. That is the WatchList stream, or the LIST body and the watch
// stream from its resourceVersion. Each watch ends after one virtual
// second.
func answerBytes(b *testing.B, h *history.History, watchList bool) (list, stream []byte) {
	b.Helper()
	get := func(t *testing.T, rt http.RoundTripper, query string) []byte {
		req, _ := http.NewRequest(http.MethodGet, level.ReplayHost+"/api/v1/configmaps?"+query, nil)
		resp, err := rt.RoundTrip(req)
		if err != nil {
			t.Fatalf("GET %s: got error %v, want none", query, err)
		}
		defer resp.Body.Close()
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatalf("GET %s: read: got error %v, want none", query, err)
		}
		return body
	}
	err := bubble.Host(func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			rt := replayer.New(h).Transport()
			if watchList {
				stream = get(t, rt, "watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1")
				return
			}
			list = get(t, rt, "limit=500")
			l, err := runtime.Decode(unstructured.UnstructuredJSONScheme, list)
			if err != nil {
				t.Fatalf("list: got error %v, want none", err)
			}
			rv := l.(*unstructured.UnstructuredList).GetResourceVersion()
			stream = get(t, rt, "watch=true&allowWatchBookmarks=true&timeoutSeconds=1&resourceVersion="+rv)
		})
	})
	if err != nil {
		b.Fatalf("answers: got error %v, want none", err)
	}
	return list, stream
}
