package faultstest

import (
	"context"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
)

// realCassette is the recorded cassette the scenarios replay: a WatchList
// stream of 19 configmaps and 38 changes from a real kube-apiserver. One
// scenario does not use it: it needs a history of more than 500 objects.
const realCassette = "../../cassettes/real-configmaps-pods-watchlist.yaml"

// configMaps is the resource the informers watch.
var configMaps = history.Resource{Version: "v1", Resource: "configmaps"}

// settle is how long, in virtual time, a scenario runs before its
// informers' state is read. It is longer than client-go's longest watch
// timeout (10 min) and a relist's backoff, so every scenario has re-watched.
const settle = 15 * time.Minute

func TestMain(m *testing.M) {
	harness.QuietClientGo() // client-go inside synctest bubbles: see its doc
	os.Exit(m.Run())
}

var (
	realOnce  sync.Once
	realFiles []*cassette.File
	realErr   error
)

// loadReal builds a fresh history of the real cassette (the files are read
// once; every scenario gets its own history).
func loadReal(t testing.TB) *history.History {
	t.Helper()
	realOnce.Do(func() { realFiles, realErr = cassette.LoadAll(realCassette) })
	if realErr != nil {
		t.Fatalf("load %s: got error %v, want none", realCassette, realErr)
	}
	h, err := history.Build(realFiles...)
	if err != nil {
		t.Fatalf("build history: got error %v, want none", err)
	}
	return h
}

// configMapLog returns the configmaps log of h.
func configMapLog(t testing.TB, h *history.History) *history.Log {
	t.Helper()
	if h == nil {
		t.Fatalf("history: got nil, want one")
	}
	l, ok := h.Log(configMaps)
	if !ok {
		t.Fatalf("history: got no configmaps log, want one")
	}
	return l
}

// parsePlan reads space-separated decisions in text form.
func parsePlan(t testing.TB, s string) faults.Plan {
	t.Helper()
	var p faults.Plan
	for _, f := range strings.Fields(s) {
		d, err := faults.ParseFault(f)
		if err != nil {
			t.Fatalf("ParseFault(%q): got error %v, want none", f, err)
		}
		p.Decisions = append(p.Decisions, d)
	}
	return p
}

// scenario is one run of real informers against a replayer under a plan.
type scenario struct {
	// watchList picks the typed informer of an informer factory (WatchList
	// first) or a hand-built one whose ListWatch opts out of WatchList.
	watchList bool
	// plan holds the decisions in text form, space-separated.
	plan string
	// opts are more server options.
	opts []replayer.Option
	// pageSize is the LIST page size the WatchList-off client asks for
	// instead of client-go's 500 (0: client-go's).
	pageSize int64
	// second starts a second informer a minute after the first; both are
	// checked.
	second bool
	// cut ends the answer to the n-th watch request (1-based) after that
	// many lines, as a dropped connection would.
	cut map[int]int
}

// outcome is what a scenario ended with.
type outcome struct {
	// states are the informers' stores, sorted by key.
	states [][]objectState
	// truth is the final state the server served.
	truth []objectState
	// truthLog is the configmaps log the server served.
	truthLog *history.Log
	// fired are the decisions that fired.
	fired []faults.Firing
	// requests are the LIST and WATCH requests, in order.
	requests []string
	// notes are each informer's handler notifications, in order.
	notes [][]string
	// synced says whether each informer synced.
	synced []bool
}

// run runs sc on h; it must be called inside a synctest bubble.
func run(t *testing.T, h *history.History, sc scenario) *outcome {
	t.Helper()
	opts := append([]replayer.Option{replayer.WithPlan(parsePlan(t, sc.plan))}, sc.opts...)
	srv := replayer.New(h, opts...)
	rl := &requestLog{rt: srv.Transport(), cut: sc.cut}
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var stops []func()
	defer func() {
		cancel()
		wg.Wait()
		for _, stop := range stops {
			stop()
		}
	}()
	n := 1
	if sc.second {
		n = 2
	}
	var infs []*informer
	for i := range n {
		if i > 0 {
			time.Sleep(time.Minute)
		}
		inf, stop := startInformer(ctx, t, &wg, clientFor(t, rl), sc)
		infs = append(infs, inf)
		stops = append(stops, stop)
	}
	time.Sleep(settle)
	synctest.Wait()
	truth := srv.Truth()
	out := &outcome{
		truthLog: configMapLog(t, truth),
		fired:    srv.Fired(),
		requests: rl.list(),
	}
	out.truth = truthState(t, out.truthLog)
	for _, inf := range infs {
		out.states = append(out.states, storeState(t, inf.inf.GetStore().List()))
		out.notes = append(out.notes, inf.notesSoFar())
		out.synced = append(out.synced, inf.inf.HasSynced())
	}
	return out
}

// clientFor returns a clientset that reaches the server through rt.
func clientFor(t *testing.T, rt http.RoundTripper) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: "http://replay.invalid", Transport: rt})
	if err != nil {
		t.Fatalf("clientset: got error %v, want none", err)
	}
	return cs
}

// informer is a running shared informer and what its handler saw.
type informer struct {
	inf   cache.SharedIndexInformer
	mu    sync.Mutex
	notes []string
}

// startInformer starts a configmaps informer as sc says; stop waits for a
// factory's goroutines once ctx is done.
func startInformer(ctx context.Context, t *testing.T, wg *sync.WaitGroup, cs *kubernetes.Clientset, sc scenario) (*informer, func()) {
	t.Helper()
	in := &informer{}
	if sc.watchList {
		f := informers.NewSharedInformerFactory(cs, 0)
		in.inf = f.Core().V1().ConfigMaps().Informer()
		in.addHandler(t)
		f.Start(ctx.Done())
		return in, f.Shutdown
	}
	lw := &noWatchList{
		ListWatch: cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), "configmaps", "", fields.Everything()),
		pageSize:  sc.pageSize,
	}
	in.inf = cache.NewSharedIndexInformer(lw, &corev1.ConfigMap{}, 0, cache.Indexers{})
	in.addHandler(t)
	wg.Go(func() { in.inf.RunWithContext(ctx) })
	return in, func() {}
}

func (in *informer) addHandler(t *testing.T) {
	t.Helper()
	_, err := in.inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { in.note("add " + keyRV(obj)) },
		UpdateFunc: func(old, obj any) { in.note("update " + keyRV(old) + " -> " + rvOf(obj)) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				in.note("delete " + keyRV(d.Obj) + " (final state unknown)")
				return
			}
			in.note("delete " + keyRV(obj))
		},
	})
	if err != nil {
		t.Fatalf("AddEventHandler: got error %v, want none", err)
	}
}

func (in *informer) note(s string) {
	in.mu.Lock()
	defer in.mu.Unlock()
	in.notes = append(in.notes, s)
}

func (in *informer) notesSoFar() []string {
	in.mu.Lock()
	defer in.mu.Unlock()
	return append([]string(nil), in.notes...)
}

func keyRV(obj any) string {
	k, err := cache.MetaNamespaceKeyFunc(obj)
	if err != nil {
		return "?"
	}
	return k + "@" + rvOf(obj)
}

func rvOf(obj any) string {
	if m, ok := obj.(metav1.Object); ok {
		return m.GetResourceVersion()
	}
	return "?"
}

// firedCount returns how many times fault fired.
func firedCount(fired []faults.Firing, fault string) int {
	n := 0
	for _, f := range fired {
		if f.Fault == fault {
			n++
		}
	}
	return n
}

// requireFired fails the test unless fault fired at least once.
func requireFired(t *testing.T, o *outcome, fault string) {
	t.Helper()
	if firedCount(o.fired, fault) == 0 {
		t.Errorf("%s fired: got 0 times (fired: %s; requests %q), want at least once", fault, faults.Story(o.fired), o.requests)
	}
}
