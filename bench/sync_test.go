// Package bench holds lwreplay's benchmarks. They time how fast a real
// client-go informer syncs against the replayer, over HTTP and
// in-process. They time how long `lwreplay serve` takes from start to a
// synced informer. BenchmarkInformerSyncReal times the same informer
// against a real kube-apiserver + etcd. bench/run.sh runs them all in
// one process, and prints the replayer's times as ratios to the real
// ones.
package bench

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"path/filepath"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/synth"
)

const benchObjects = 5000

var (
	cassetteOnce sync.Once
	cassettePath string
	cassetteErr  error
)

// configmapCassette writes, once per process, a cassette of 5,000
// configmaps (a few data keys and labels each, as a real cluster's).
func configmapCassette(b *testing.B) string {
	cassetteOnce.Do(func() {
		bl := synth.NewBuilder()
		for i := range benchObjects {
			bl.Add(&corev1.ConfigMap{
				ObjectMeta: metav1.ObjectMeta{
					Namespace: fmt.Sprintf("ns-%d", i%10), Name: fmt.Sprintf("cm-%05d", i),
					Labels: map[string]string{"app": fmt.Sprintf("app-%d", i%37), "tier": "backend"},
				},
				Data: map[string]string{"config.yaml": "replicas: 3\nimage: registry.example/app:v1.2.3\n", "mode": "prod"},
			})
		}
		f, err := bl.Cassette(synth.CassetteOptions{})
		if err != nil {
			cassetteErr = err
			return
		}
		dir, err := mkdirTemp()
		if err != nil {
			cassetteErr = err
			return
		}
		cassettePath = filepath.Join(dir, "configmaps-5000.yaml")
		cassetteErr = f.Save(cassettePath)
	})
	if cassetteErr != nil {
		b.Fatal(cassetteErr)
	}
	return cassettePath
}

func loadHistory(b *testing.B, path string) *history.History {
	files, err := cassette.LoadAll(path)
	if err != nil {
		b.Fatal(err)
	}
	h, err := history.Build(files...)
	if err != nil {
		b.Fatal(err)
	}
	return h
}

// noWatchList makes a reflector take the LIST+WATCH path.
type noWatchList struct{ *cache.ListWatch }

// IsWatchListSemanticsUnSupported opts out of WatchList.
func (noWatchList) IsWatchListSemanticsUnSupported() bool { return true }

// syncInformer starts a configmap informer on cfg and returns once it has
// synced, checking it holds want objects.
func syncInformer(b *testing.B, cfg *rest.Config, watchList bool, want int) {
	client, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		b.Fatal(err)
	}
	var lw cache.ListerWatcher = cache.NewListWatchFromClient(client.CoreV1().RESTClient(), "configmaps", "", fields.Everything())
	if !watchList {
		lw = noWatchList{lw.(*cache.ListWatch)}
	}
	inf := cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go inf.RunWithContext(ctx)
	// Poll every millisecond: WaitForCacheSync would poll every 100 ms and
	// round every time up to that (cache.WaitFor, which returns at once,
	// is client-go v0.36's).
	synced := func(context.Context) (bool, error) { return inf.HasSynced(), nil }
	if err := wait.PollUntilContextCancel(ctx, time.Millisecond, true, synced); err != nil {
		b.Fatal("informer did not sync")
	}
	if got := len(inf.GetStore().ListKeys()); got != want {
		b.Fatalf("informer holds %d objects, want %d", got, want)
	}
}

func serveHTTP(b *testing.B, srv *replayer.Server) (url string, stop func()) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	return "http://" + l.Addr().String(), func() {
		cancel()
		if err := <-done; err != nil {
			b.Error(err)
		}
	}
}

func httpConfig(url string) *rest.Config {
	return &rest.Config{Host: url, QPS: -1, Transport: &http.Transport{MaxIdleConnsPerHost: 10}}
}

// BenchmarkInformerSync times a 5,000-configmap informer's sync alone
// (server already up), over HTTP on loopback and in-process, with WatchList
// and with LIST+WATCH. Reference on these machines: a real kube-apiserver
// 1.37 + etcd 3.6 syncs it in ~110 ms (LIST) / ~140 ms (WatchList).
func BenchmarkInformerSync(b *testing.B) {
	h := loadHistory(b, configmapCassette(b))
	for _, face := range []string{"http", "inprocess"} {
		for _, wl := range []bool{true, false} {
			name := face + "/list"
			if wl {
				name = face + "/watchlist"
			}
			b.Run(name, func(b *testing.B) {
				for b.Loop() {
					b.StopTimer()
					srv := replayer.New(h)
					cfg := &rest.Config{Host: "http://replay.invalid", QPS: -1, Transport: srv.Transport()}
					stop := func() {}
					if face == "http" {
						var url string
						url, stop = serveHTTP(b, srv)
						cfg = httpConfig(url)
					}
					b.StartTimer()
					syncInformer(b, cfg, wl, benchObjects)
					b.StopTimer()
					stop()
					b.StartTimer()
				}
			})
		}
	}
}

// BenchmarkServeToSynced times what `lwreplay serve` does from start (load
// the cassette, build the history, listen) until a client-go informer over
// HTTP has synced. Reference: a real kube-apiserver + etcd needs ~4.6 s to
// start and ~6.8 s to be filled with 5,000 configmaps.
func BenchmarkServeToSynced(b *testing.B) {
	path := configmapCassette(b)
	for b.Loop() {
		start := time.Now()
		srv := replayer.New(loadHistory(b, path))
		url, stop := serveHTTP(b, srv)
		syncInformer(b, httpConfig(url), true, benchObjects)
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms-to-synced")
		b.StopTimer()
		stop()
		b.StartTimer()
	}
}
