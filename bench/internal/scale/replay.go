package scale

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
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
// initial state into typed lists: every resource's, at its start, one page
// each. The informers of ServeList and ServeWatchList receive them so. It
// reports the median of Rounds decodes ("ms") and the objects ("objects").
func measureDecodeList(ctx context.Context, job Job) (Figures, error) {
	_, bodies, err := listEach(ctx, job, func(_ http.RoundTripper, lg *history.Log) (string, error) { return lg.StartRV, nil })
	if err != nil {
		return nil, err
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

// measureReplay measures in-process replay against client-go decoding the
// same bytes alone, in one process. It reads the watch bodies of every
// resource, from its start through its last event, into memory. Then it
// alternates Rounds times a replay and decoding the bodies alone. The
// replay is typed clientset watches through the in-process transport, one
// resource after the other. The decoding is as client-go's REST client
// decodes a watch. The scheme's JSON stream serializer frames events, and
// the watch decoder turns them into typed objects. Alternating in one
// process gives both the same heap (the history and the bodies). So both
// get the same garbage collection, and the same noise of a shared
// machine. It reports the events of one round ("events") and the rounds
// ("rounds"). It reports the seconds of the replays and of the decodes,
// summed over the rounds ("replay_s", "decode_s").
func measureReplay(ctx context.Context, job Job) (Figures, error) {
	h, err := loadHistory(job.Cassette)
	if err != nil {
		return nil, err
	}
	rt := newServer(h)
	bodies := make([][]byte, len(h.Logs))
	events := 0
	for i, lg := range h.Logs {
		var buf bytes.Buffer
		if err := watchAll(ctx, rt, lg, &buf, func(*frame, int) {}); err != nil {
			return nil, err
		}
		bodies[i] = buf.Bytes()
		events += lg.End()
	}
	cs, err := replayClient(rt, nil)
	if err != nil {
		return nil, err
	}
	var replay, decode time.Duration
	for range job.rounds() {
		start := time.Now()
		for _, lg := range h.Logs {
			if err := typedWatch(ctx, cs, lg, lg.End()); err != nil {
				return nil, err
			}
		}
		replay += time.Since(start)
		start = time.Now()
		for i, lg := range h.Logs {
			if err := decodeWatch(bodies[i], lg.End()); err != nil {
				return nil, err
			}
		}
		decode += time.Since(start)
	}
	return Figures{"events": float64(events), "replay_s": replay.Seconds(), "decode_s": decode.Seconds(), "rounds": float64(job.rounds())}, nil
}

// decodeWatch decodes a watch body with client-go's decoders until n
// events (bookmarks aside) have come.
func decodeWatch(body []byte, n int) error {
	info, ok := kruntime.SerializerInfoForMediaType(scheme.Codecs.WithoutConversion().SupportedMediaTypes(), kruntime.ContentTypeJSON)
	if !ok || info.StreamSerializer == nil {
		return fmt.Errorf("%w: client-go's scheme has no JSON stream serializer", ErrMeasure)
	}
	objects := scheme.Codecs.WithoutConversion().DecoderToVersion(info.Serializer, corev1.SchemeGroupVersion)
	fr := info.StreamSerializer.Framer.NewFrameReader(io.NopCloser(bytes.NewReader(body)))
	return decodeEvents(restclientwatch.NewDecoder(streaming.NewDecoder(fr, info.StreamSerializer.Serializer), objects), n)
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
