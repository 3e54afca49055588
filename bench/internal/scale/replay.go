package scale

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kruntime "k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer/streaming"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	restclientwatch "k8s.io/client-go/rest/watch"

	"github.com/lwreplay/lwreplay/history"
)

// measureDecodeList times client-go decoding the LIST bodies of the
// initial state (every resource's, at its start, one page each) into typed
// lists, as the informers of ServeList and ServeWatchList receive them.
// It reports the median of Rounds decodes ("ms") and the objects
// ("objects").
func measureDecodeList(ctx context.Context, job Job) (Figures, error) {
	h, err := loadHistory(job.Cassette)
	if err != nil {
		return nil, err
	}
	rt := newServer(h)
	var bodies [][]byte
	for _, lg := range h.Logs {
		b, err := listAt(ctx, rt, lg, lg.StartRV)
		if err != nil {
			return nil, err
		}
		bodies = append(bodies, b)
	}
	var times []time.Duration
	objects := 0
	for range job.rounds() {
		objects = 0
		start := time.Now()
		for _, b := range bodies {
			_, n, err := decodeList(b)
			if err != nil {
				return nil, err
			}
			objects += n
		}
		times = append(times, time.Since(start))
	}
	slices.Sort(times)
	return Figures{"ms": float64(times[len(times)/2].Microseconds()) / 1e3, "objects": float64(objects)}, nil
}

// replayClient returns a typed clientset of the in-process transport rt,
// wrapped by wrap (nil: not).
func replayClient(rt http.RoundTripper, wrap func(http.RoundTripper) http.RoundTripper) (kubernetes.Interface, error) {
	cfg := &rest.Config{Host: replayHost, QPS: -1, Transport: rt}
	if wrap != nil {
		cfg.Wrap(wrap)
	}
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("%w: clientset: %v", ErrMeasure, err)
	}
	return cs, nil
}

// typedWatch consumes a typed clientset watch of lg's resource from its
// start until n events (bookmarks aside) have come.
func typedWatch(ctx context.Context, cs kubernetes.Interface, lg *history.Log, n int) error {
	t, err := typedOf(lg.Resource)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w, err := t.watch(ctx, cs, metav1.ListOptions{ResourceVersion: lg.StartRV, AllowWatchBookmarks: true})
	if err != nil {
		return fmt.Errorf("%w: watch %s: %v", ErrMeasure, lg.Resource, err)
	}
	defer w.Stop()
	for got := 0; got < n; {
		e, ok := <-w.ResultChan()
		switch {
		case !ok:
			return fmt.Errorf("%w: watch %s: ended after %d events, want %d", ErrMeasure, lg.Resource, got, n)
		case e.Type == watch.Error:
			return fmt.Errorf("%w: watch %s: event %d is an ERROR: %v", ErrMeasure, lg.Resource, got, e.Object)
		case e.Type != watch.Bookmark:
			got++
		}
	}
	return nil
}

// measureReplay times typed clientset watches through the in-process
// transport of every resource from its start through its last event, one
// after the other, and reports the events and the seconds they took.
func measureReplay(ctx context.Context, job Job) (Figures, error) {
	h, err := loadHistory(job.Cassette)
	if err != nil {
		return nil, err
	}
	cs, err := replayClient(newServer(h), nil)
	if err != nil {
		return nil, err
	}
	events := 0
	start := time.Now()
	for _, lg := range h.Logs {
		if err := typedWatch(ctx, cs, lg, lg.End()); err != nil {
			return nil, err
		}
		events += lg.End()
	}
	return Figures{"events": float64(events), "seconds": time.Since(start).Seconds()}, nil
}

// measureDecodeWatch reads the watch bodies of measureReplay into memory
// and times client-go decoding them alone, as its REST client decodes a
// watch (the scheme's JSON stream serializer framing events, the watch
// decoder turning them into typed objects); it reports the events and the
// seconds they took. The history stays loaded meanwhile, as in
// measureReplay, so that both processes' heaps, and so their garbage
// collections, are alike.
func measureDecodeWatch(ctx context.Context, job Job) (Figures, error) {
	h, err := loadHistory(job.Cassette)
	if err != nil {
		return nil, err
	}
	rt := newServer(h)
	bodies := make([][]byte, len(h.Logs))
	counts := make([]int, len(h.Logs))
	for i, lg := range h.Logs {
		counts[i] = lg.End()
		var buf bytes.Buffer
		if err := watchAll(ctx, rt, lg, &buf, func(*frame, int) {}); err != nil {
			return nil, err
		}
		bodies[i] = buf.Bytes()
	}
	info, ok := kruntime.SerializerInfoForMediaType(scheme.Codecs.WithoutConversion().SupportedMediaTypes(), kruntime.ContentTypeJSON)
	if !ok || info.StreamSerializer == nil {
		return nil, fmt.Errorf("%w: client-go's scheme has no JSON stream serializer", ErrMeasure)
	}
	objects := scheme.Codecs.WithoutConversion().DecoderToVersion(info.Serializer, corev1.SchemeGroupVersion)
	events := 0
	start := time.Now()
	for i, b := range bodies {
		fr := info.StreamSerializer.Framer.NewFrameReader(io.NopCloser(bytes.NewReader(b)))
		d := restclientwatch.NewDecoder(streaming.NewDecoder(fr, info.StreamSerializer.Serializer), objects)
		if err := decodeEvents(d, counts[i]); err != nil {
			return nil, err
		}
		events += counts[i]
	}
	took := time.Since(start)
	runtime.KeepAlive(h)
	return Figures{"events": float64(events), "seconds": took.Seconds()}, nil
}

// decodeEvents decodes events from d until n (bookmarks aside) have come.
func decodeEvents(d *restclientwatch.Decoder, n int) error {
	defer d.Close()
	for got := 0; got < n; {
		t, _, err := d.Decode()
		if err != nil {
			return fmt.Errorf("%w: decode watch: after %d of %d events: %v", ErrMeasure, got, n, err)
		}
		if t != watch.Bookmark {
			got++
		}
	}
	return nil
}
