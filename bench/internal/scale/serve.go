package scale

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/klog/v2"
)

// syncTimeout bounds serve's start to a synced informer.
const syncTimeout = 30 * time.Minute

// noWatchList makes a reflector take the LIST+WATCH path, as
// KUBE_FEATURE_WatchListClient=false does.
type noWatchList struct{ *cache.ListWatch }

// IsWatchListSemanticsUnSupported opts out of WatchList.
func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// countWatchLists counts the WatchList requests it passes on.
type countWatchLists struct {
	rt http.RoundTripper
	n  *atomic.Int64
}

// RoundTrip passes req on, counting it when it asks for initial events.
func (c countWatchLists) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Query().Get("sendInitialEvents") == "true" {
		c.n.Add(1)
	}
	return c.rt.RoundTrip(req)
}

// measureServe starts `lwreplay serve` on the cassette (HTTPS, the
// kubeconfig it writes). It starts an informer per resource in this
// process, on the LIST+WATCH path (ServeList) or WatchList
// (ServeWatchList). It reports the time from exec to every informer
// synced ("ms"), and to serve saying it listens ("listen_ms": loading
// and building done). It reports the objects the informers hold at sync
// ("objects"), and serve's peak RSS ("serve_rss").
func measureServe(ctx context.Context, job Job) (Figures, error) {
	// the reflectors' "context canceled" when the informers stop is noise
	klog.SetOutput(io.Discard)
	klog.LogToStderr(false)
	dir, err := tempDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	kubeconfig := filepath.Join(dir, "kubeconfig")
	ctx, cancel := context.WithTimeout(ctx, syncTimeout)
	defer cancel()
	cmd := exec.Command(job.Lwreplay, "serve", "--write-kubeconfig", kubeconfig, job.Cassette)
	ready := &lineWatch{prefix: "kubeconfig: ", seen: make(chan struct{})}
	var stderr strings.Builder
	cmd.Stdout, cmd.Stderr = ready, &stderr
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w: %s: start %s: %v", ErrMeasure, job.Measure, job.Lwreplay, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	stop := func() error {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		if err := <-exited; err != nil {
			return fmt.Errorf("%w: %s: lwreplay serve: %v: %s", ErrMeasure, job.Measure, err, strings.TrimSpace(stderr.String()))
		}
		return nil
	}
	select {
	case <-ready.seen:
	case err := <-exited:
		return nil, fmt.Errorf("%w: %s: lwreplay serve exited (%v) before it wrote its kubeconfig: %s", ErrMeasure, job.Measure, err, strings.TrimSpace(stderr.String()))
	case <-ctx.Done():
		_ = stop()
		return nil, fmt.Errorf("%w: %s: lwreplay serve wrote no kubeconfig within %v", ErrMeasure, job.Measure, syncTimeout)
	}
	listening := time.Since(start)
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		_ = stop()
		return nil, fmt.Errorf("%w: %s: %v", ErrMeasure, job.Measure, err)
	}
	cfg.QPS = -1
	var watchLists atomic.Int64
	cfg.Wrap(func(rt http.RoundTripper) http.RoundTripper { return countWatchLists{rt, &watchLists} })
	objects, err := syncInformers(ctx, cfg, job.resources(), job.Measure == ServeWatchList)
	synced := time.Since(start)
	if serr := stop(); err == nil {
		err = serr
	}
	if err != nil {
		return nil, err
	}
	switch wl := watchLists.Load(); {
	case job.Measure == ServeWatchList && wl == 0:
		return nil, fmt.Errorf("%w: %s: got no WatchList request, want one per informer", ErrMeasure, job.Measure)
	case job.Measure == ServeList && wl > 0:
		return nil, fmt.Errorf("%w: %s: got %d WatchList requests, want none", ErrMeasure, job.Measure, wl)
	}
	return Figures{
		"ms":        float64(synced.Microseconds()) / 1e3,
		"listen_ms": float64(listening.Microseconds()) / 1e3,
		"objects":   float64(objects),
		"serve_rss": float64(maxRSS(cmd.ProcessState)),
	}, nil
}

// syncInformers runs an informer per resource on cfg, each with an event
// handler, until every handler has synced. (A controller waits for
// that.) It returns the objects of their initial lists.
func syncInformers(ctx context.Context, cfg *rest.Config, resources []string, watchList bool) (int, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return 0, fmt.Errorf("%w: clientset: %v", ErrMeasure, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var synced []cache.InformerSynced
	initial := make([]atomic.Int64, len(resources))
	for i, r := range resources {
		t, ok := typedResources[r]
		if !ok {
			return 0, fmt.Errorf("%w: resource %q: not one the benchmarks decode (configmaps, pods)", ErrMeasure, r)
		}
		var lw cache.ListerWatcher = cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), r, "", fields.Everything())
		if !watchList {
			lw = noWatchList{lw.(*cache.ListWatch)}
		}
		inf := cache.NewSharedIndexInformer(lw, t.object, 0, cache.Indexers{})
		reg, err := inf.AddEventHandler(initialCounter{&initial[i]})
		if err != nil {
			return 0, fmt.Errorf("%w: informer %s: %v", ErrMeasure, r, err)
		}
		synced = append(synced, reg.HasSynced)
		go inf.RunWithContext(ctx)
	}
	// every millisecond: WaitForCacheSync would round up to 100 ms
	all := func(context.Context) (bool, error) {
		for _, s := range synced {
			if !s() {
				return false, nil
			}
		}
		return true, nil
	}
	if err := wait.PollUntilContextCancel(ctx, time.Millisecond, true, all); err != nil {
		return 0, fmt.Errorf("%w: informers %v did not sync: %v", ErrMeasure, resources, err)
	}
	n := 0
	for i := range initial {
		n += int(initial[i].Load())
	}
	return n, nil
}

// initialCounter is an event handler that counts the objects of the
// initial LIST (or WatchList's initial events).
type initialCounter struct{ n *atomic.Int64 }

// OnAdd counts obj if it is in the initial list.
func (c initialCounter) OnAdd(_ any, isInInitialList bool) {
	if isInInitialList {
		c.n.Add(1)
	}
}

// OnUpdate does nothing.
func (initialCounter) OnUpdate(any, any) {}

// OnDelete does nothing.
func (initialCounter) OnDelete(any) {}

// lineWatch is a process's stdout: it closes seen once a line starting
// with prefix has been written, and drops everything.
type lineWatch struct {
	prefix string
	seen   chan struct{}
	line   []byte
	done   bool
}

// Write looks for the line in p.
func (w *lineWatch) Write(p []byte) (int, error) {
	for _, c := range p {
		if w.done {
			break
		}
		if c != '\n' {
			w.line = append(w.line, c)
			continue
		}
		if strings.HasPrefix(string(w.line), w.prefix) {
			w.done = true
			close(w.seen)
		}
		w.line = w.line[:0]
	}
	return len(p), nil
}
