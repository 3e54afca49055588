package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/lwreplay/lwreplay/bench/internal/scale"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/cluster"
)

// fillWorkers is how many configmaps are created at once.
const fillWorkers = 8

// realCluster is the one kube-apiserver + etcd a benchmark process starts
// and fills; TestMain stops it.
var realCluster struct {
	once    sync.Once
	c       *cluster.Cluster
	objects int // configmaps it holds, the fill's and its own
	start   time.Duration
	fill    time.Duration
	err     error
}

func TestMain(m *testing.M) {
	if code, ok := scale.ChildMain(); ok { // a child of TestScaleSmoke
		os.Exit(code)
	}
	code := m.Run()
	if c := realCluster.c; c != nil {
		if err := c.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			code = 1
		}
	}
	os.Exit(code)
}

// startRealCluster starts, once per process, a real cluster holding the
// configmaps of configmapCassette; under -short it skips b instead.
func startRealCluster(b *testing.B) *cluster.Cluster {
	cluster.SkipShort(b)
	rc := &realCluster
	rc.once.Do(func() {
		h := loadHistory(b, configmapCassette(b))
		t0 := time.Now()
		rc.c, rc.err = cluster.Start(context.Background())
		if rc.err != nil {
			return
		}
		rc.start = time.Since(t0)
		t0 = time.Now()
		rc.objects, rc.err = fillCluster(rc.c, h)
		rc.fill = time.Since(t0)
		if rc.err == nil {
			b.Logf("kube-apiserver %s + etcd %s: ready in %v, filled with %d configmaps in %v (%d workers)",
				cluster.KubeVersion, cluster.EtcdVersion, rc.start.Round(time.Millisecond),
				benchObjects, rc.fill.Round(time.Millisecond), fillWorkers)
		}
	})
	if rc.err != nil {
		cluster.Skip(b, rc.err)
		b.Fatal(rc.err)
	}
	return rc.c
}

// fillCluster creates the final state of h's configmaps in c (namespaces
// first) and returns how many configmaps c then holds.
func fillCluster(c *cluster.Cluster, h *history.History) (int, error) {
	ctx, cancel := context.WithTimeoutCause(context.Background(), 5*time.Minute, errors.New("fill took over 5 minutes"))
	defer cancel()
	cs, err := kubernetes.NewForConfig(c.RestConfig())
	if err != nil {
		return 0, err
	}
	var objs []*history.Object
	for _, l := range h.Logs {
		if l.Resource.Resource == "configmaps" {
			objs = l.StateAt(l.End())
		}
	}
	if len(objs) != benchObjects {
		return 0, fmt.Errorf("cassette holds %d configmaps, want %d", len(objs), benchObjects)
	}
	namespaces := map[string]bool{}
	for _, o := range objs {
		namespaces[o.Namespace] = true
	}
	names := make([]string, 0, len(namespaces))
	for ns := range namespaces {
		names = append(names, ns)
	}
	sort.Strings(names)
	for _, ns := range names {
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			return 0, fmt.Errorf("namespace %s: %w", ns, err)
		}
	}

	ctx, stop := context.WithCancelCause(ctx)
	defer stop(nil)
	work := make(chan *history.Object)
	var wg sync.WaitGroup
	for range fillWorkers {
		wg.Go(func() {
			for o := range work {
				var cm corev1.ConfigMap
				if err := json.Unmarshal(o.Raw, &cm); err != nil {
					stop(fmt.Errorf("configmap %s: %w", o.Key(), err))
					continue
				}
				cm.ResourceVersion, cm.UID, cm.CreationTimestamp, cm.ManagedFields = "", "", metav1.Time{}, nil
				if _, err := cs.CoreV1().ConfigMaps(cm.Namespace).Create(ctx, &cm, metav1.CreateOptions{}); err != nil {
					stop(fmt.Errorf("configmap %s: %w", o.Key(), err))
				}
			}
		})
	}
feed:
	for _, o := range objs {
		select {
		case work <- o:
		case <-ctx.Done():
			break feed
		}
	}
	close(work)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return 0, err
	}
	list, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return 0, err
	}
	if len(list.Items) < benchObjects {
		return 0, fmt.Errorf("cluster holds %d configmaps after the fill, want at least %d", len(list.Items), benchObjects)
	}
	return len(list.Items), nil
}

// BenchmarkInformerSyncReal times the informer of BenchmarkInformerSync
// against a real kube-apiserver + etcd on loopback (HTTPS, HTTP/2). It
// holds the same 5,000 configmaps, plus the few kube-apiserver makes
// itself. It runs with WatchList and with LIST+WATCH. The cluster starts
// and is filled once per process. Each iteration is a new informer on a
// new client. client-go reuses its cached TLS transport, so only the first
// iteration pays the handshake.
func BenchmarkInformerSyncReal(b *testing.B) {
	for _, wl := range []bool{true, false} {
		name := "real/list"
		if wl {
			name = "real/watchlist"
		}
		b.Run(name, func(b *testing.B) {
			// Started here, not in the parent, so that its log line shows
			// without -v.
			c := startRealCluster(b)
			for b.Loop() {
				syncInformer(b, c.RestConfig(), wl, realCluster.objects)
			}
			b.ReportMetric(float64(realCluster.start.Milliseconds()), "start-ms")
			b.ReportMetric(float64(realCluster.fill.Milliseconds()), "fill-ms")
		})
	}
}
