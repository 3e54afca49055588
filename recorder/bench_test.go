package recorder

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/synth"
)

// benchHistory is 1,000 configmaps and then events changes.
func benchHistory(b *testing.B, events int) *history.History {
	b.Helper()
	f, err := synth.Generate(synth.GenerateOptions{Objects: 1000, Events: events, Seed: 7, Kinds: []string{"configmaps"}})
	if err != nil {
		b.Fatalf("generate: got error %v, want none", err)
	}
	f.Path = "bench.yaml"
	h, err := history.Build(f)
	if err != nil {
		b.Fatalf("build: got error %v, want none", err)
	}
	return h
}

// syncInformer runs a configmap informer (WatchList, client-go's default)
// against h through rt until it has handled the initial state and every
// event, then stops it.
func syncInformer(b *testing.B, h *history.History, wrap func(http.RoundTripper) http.RoundTripper) {
	l := h.Logs[0]
	want := int64(len(l.Initial) + len(l.Events))
	cfg := &rest.Config{Host: "http://replay.invalid", Transport: replayer.New(h).Transport()}
	if wrap != nil {
		cfg.Wrap(wrap)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatalf("clientset: got error %v, want none", err)
	}
	lw := cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", "", fields.Everything())
	inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	var seen atomic.Int64
	done := make(chan struct{})
	note := func() {
		if seen.Add(1) == want {
			close(done)
		}
	}
	inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(any) { note() },
		UpdateFunc: func(any, any) { note() },
		DeleteFunc: func(any) { note() },
	})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { inf.RunWithContext(ctx) })
	select {
	case <-done:
	case <-time.After(5 * time.Minute):
		b.Fatalf("informer: got %d notifications, want %d", seen.Load(), want)
	}
	cancel()
	wg.Wait()
}

// BenchmarkInformerSync is a configmap informer's sync of 1,000 objects and
// a 10,000-event watch, in process against the replayer. It runs without
// and with the recorder (default options) wrapped around the transport. The
// recorder's final write at Close is outside the timer and reported as
// close-ms/op.
func BenchmarkInformerSync(b *testing.B) {
	h := benchHistory(b, 10000)
	b.Run("recorder=off", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			syncInformer(b, h, nil)
		}
	})
	b.Run("recorder=on", func(b *testing.B) {
		b.ReportAllocs()
		dir := b.TempDir()
		var closing time.Duration
		for b.Loop() {
			rec, err := New(filepath.Join(dir, "bench.yaml"))
			if err != nil {
				b.Fatalf("New: got error %v, want none", err)
			}
			syncInformer(b, h, rec.Wrap)
			b.StopTimer()
			start := time.Now()
			if err := rec.Close(); err != nil {
				b.Fatalf("Close: got error %v, want none", err)
			}
			closing += time.Since(start)
			b.StartTimer()
		}
		b.ReportMetric(float64(closing.Milliseconds())/float64(b.N), "close-ms/op")
	})
}

// BenchmarkRecorderOverhead runs the sync of BenchmarkInformerSync without
// and with the recorder in turn, in each iteration. It reports the ratios
// (on/off) of their total wall-clock times and of the process CPU time
// they used. The recorder's final write at Close is outside both.
// Alternating keeps the noise of a shared machine out of the ratios.
func BenchmarkRecorderOverhead(b *testing.B) {
	h := benchHistory(b, 10000)
	dir := b.TempDir()
	var off, on, cpuOff, cpuOn time.Duration
	for b.Loop() {
		start, cpu := time.Now(), cpuTime()
		syncInformer(b, h, nil)
		off += time.Since(start)
		cpuOff += cpuTime() - cpu
		rec, err := New(filepath.Join(dir, "bench.yaml"))
		if err != nil {
			b.Fatalf("New: got error %v, want none", err)
		}
		start, cpu = time.Now(), cpuTime()
		syncInformer(b, h, rec.Wrap)
		on += time.Since(start)
		cpuOn += cpuTime() - cpu
		if err := rec.Close(); err != nil {
			b.Fatalf("Close: got error %v, want none", err)
		}
	}
	b.ReportMetric(float64(on)/float64(off), "wall-on/off")
	if cpuOff > 0 {
		b.ReportMetric(float64(cpuOn)/float64(cpuOff), "cpu-on/off")
	}
}

// BenchmarkRecorderMemory records the sync of 1,000 objects and a watch of
// 10,000 or 20,000 events. It runs without and with a recorder rotating at
// 256 KiB. It reports the peak heap in use above the level before the run.
// The heap is sampled every 2 ms, with GOGC at 10 so that it is mostly live
// data; the informer's state is in it. With the recorder, it also reports
// the peak of the current file's sealable bytes (what rotation bounds). With
// rotation both stay flat in the number of events.
func BenchmarkRecorderMemory(b *testing.B) {
	for _, events := range []int{10000, 20000} {
		h := benchHistory(b, events)
		for _, on := range []bool{false, true} {
			b.Run(fmt.Sprintf("events=%d/recorder=%v", events, map[bool]string{false: "off", true: "on"}[on]), func(b *testing.B) {
				benchMemory(b, h, on)
			})
		}
	}
}

func benchMemory(b *testing.B, h *history.History, on bool) {
	// collect often, so that the heap in use is mostly live data
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	dir := b.TempDir()
	var peakHeap, peakHeld int64
	files := 0
	for b.Loop() {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		base := int64(ms.HeapInuse)
		var rec *Recorder
		var wrap func(http.RoundTripper) http.RoundTripper
		if on {
			var err error
			rec, err = New(filepath.Join(dir, fmt.Sprintf("run%d", files), "bench.yaml"), WithMaxSize(256<<10))
			if err != nil {
				b.Fatalf("New: got error %v, want none", err)
			}
			wrap = rec.Wrap
		}
		stop := make(chan struct{})
		var wg sync.WaitGroup
		wg.Go(func() {
			t := time.NewTicker(2 * time.Millisecond)
			defer t.Stop()
			for {
				var ms runtime.MemStats
				runtime.ReadMemStats(&ms)
				peakHeap = max(peakHeap, int64(ms.HeapInuse)-base)
				if rec != nil {
					peakHeld = max(peakHeld, rec.size.Load())
				}
				select {
				case <-stop:
					return
				case <-t.C:
				}
			}
		})
		syncInformer(b, h, wrap)
		close(stop)
		wg.Wait()
		if rec != nil {
			if err := rec.Close(); err != nil {
				b.Fatalf("Close: got error %v, want none", err)
			}
			files += len(rec.Stats().Files)
		}
	}
	b.ReportMetric(float64(peakHeap)/(1<<20), "peak-heap-MiB")
	if on {
		b.ReportMetric(float64(peakHeld)/(1<<10), "peak-held-KiB")
		b.ReportMetric(float64(files)/float64(b.N), "files/op")
	}
}

// BenchmarkSplitter splits a generated watch stream of 2,000 events into
// frames, in reads of 4 KiB.
func BenchmarkSplitter(b *testing.B) {
	f, err := synth.Generate(synth.GenerateOptions{Objects: 100, Events: 2000, Seed: 7, Kinds: []string{"configmaps", "pods"}})
	if err != nil {
		b.Fatalf("generate: got error %v, want none", err)
	}
	var stream []byte
	for _, it := range f.Interactions {
		if strings.Contains(it.URL, "watch=true") {
			stream = append(stream, it.Body...)
		}
	}
	b.SetBytes(int64(len(stream)))
	for b.Loop() {
		var s splitter
		frames := 0
		for off := 0; off < len(stream); off += 4096 {
			p := stream[off:min(off+4096, len(stream))]
			for i := 0; i < len(p); {
				k, ev := s.next(p, i)
				if ev == evEnd {
					frames++
				}
				i = k + 1
			}
		}
		if frames == 0 {
			b.Fatalf("frames: got 0, want some")
		}
	}
}

// BenchmarkRecordStream reads a generated watch stream of 10,000 events
// (the one BenchmarkInformerSync replays) in reads of 4 KiB, without and
// with the recorder. That is the recorder's own cost per stream, with no
// client work around it. The final write at Close is outside the timer.
func BenchmarkRecordStream(b *testing.B) {
	f, err := synth.Generate(synth.GenerateOptions{Objects: 1000, Events: 10000, Seed: 7, Kinds: []string{"configmaps"}})
	if err != nil {
		b.Fatalf("generate: got error %v, want none", err)
	}
	var stream string
	for _, it := range f.Interactions {
		if strings.Contains(it.URL, "watch=true") {
			stream = string(it.Body)
		}
	}
	answers := map[string]answer{watchURI: {code: 200, parts: chunk(stream, 4096)}}
	for _, on := range []bool{false, true} {
		b.Run(fmt.Sprintf("recorder=%s", map[bool]string{false: "off", true: "on"}[on]), func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			dir := b.TempDir()
			buf := make([]byte, 4096)
			for b.Loop() {
				var rt http.RoundTripper = &upstream{answers: answers}
				var rec *Recorder
				if on {
					rec, err = New(filepath.Join(dir, "bench.yaml"), WithFlushInterval(0))
					if err != nil {
						b.Fatalf("New: got error %v, want none", err)
					}
					rt = rec.Wrap(rt)
				}
				req, _ := http.NewRequest(http.MethodGet, testHost+watchURI, nil)
				resp, err := rt.RoundTrip(req)
				if err != nil {
					b.Fatalf("watch: got error %v, want none", err)
				}
				for {
					if _, err := resp.Body.Read(buf); err != nil {
						break
					}
				}
				resp.Body.Close()
				if rec != nil {
					b.StopTimer()
					rec.Close()
					b.StartTimer()
				}
			}
		})
	}
}

// watchEvents consumes a typed configmap watch of h from its initial
// state's resourceVersion through rt until every event has come.
func watchEvents(b *testing.B, h *history.History, wrap func(http.RoundTripper) http.RoundTripper) {
	l := h.Logs[0]
	cfg := &rest.Config{Host: "http://replay.invalid", QPS: -1, Transport: replayer.New(h).Transport()}
	if wrap != nil {
		cfg.Wrap(wrap)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatalf("clientset: got error %v, want none", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := cs.CoreV1().ConfigMaps("").Watch(ctx, metav1.ListOptions{ResourceVersion: l.StartRV, AllowWatchBookmarks: true})
	if err != nil {
		b.Fatalf("watch: got error %v, want none", err)
	}
	defer w.Stop()
	for got := 0; got < len(l.Events); {
		e, ok := <-w.ResultChan()
		switch {
		case !ok:
			b.Fatalf("watch: ended after %d events, want %d", got, len(l.Events))
		case e.Type == watch.Error:
			b.Fatalf("watch: event %d: got an ERROR, want none", got)
		case e.Type != watch.Bookmark:
			got++
		}
	}
}

// BenchmarkRecorderWatchCPU is bench/scale.sh's recorder row in small. It
// measures the process CPU time of a typed watch of 20,000 configmap
// events through the replayer, without and with the recorder, alternated
// in each iteration. The recorder's New through Close (its last save) is
// included. The maximum size is 1 MiB. So the stream (some 12 MiB) rotates
// as often as the scale row's 100,000 pod events do at the default 16 MiB.
// It reports cpu-on/off, the ratio of the sums.
func BenchmarkRecorderWatchCPU(b *testing.B) {
	h := benchHistory(b, 20000)
	dir := b.TempDir()
	var cpuOff, cpuOn time.Duration
	n := 0
	for b.Loop() {
		cpu := cpuTime()
		watchEvents(b, h, nil)
		cpuOff += cpuTime() - cpu
		cpu = cpuTime()
		rec, err := New(filepath.Join(dir, fmt.Sprintf("run%d", n), "bench.yaml"), WithMaxSize(1<<20))
		if err != nil {
			b.Fatalf("New: got error %v, want none", err)
		}
		watchEvents(b, h, rec.Wrap)
		if err := rec.Close(); err != nil {
			b.Fatalf("Close: got error %v, want none", err)
		}
		cpuOn += cpuTime() - cpu
		if got := rec.Stats().Events; got < 20000 {
			b.Fatalf("events recorded: got %d, want at least 20000", got)
		}
		n++
	}
	if cpuOff > 0 {
		b.ReportMetric(float64(cpuOn)/float64(cpuOff), "cpu-on/off")
	}
}
