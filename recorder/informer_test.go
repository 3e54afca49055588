package recorder

import (
	"context"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
	"github.com/lwreplay/lwreplay/replayer"
	"github.com/lwreplay/lwreplay/synth"
)

// bearerToken is the client's credential: it must reach no file.
const bearerToken = "bearer-7d1e-must-not-be-recorded"

// recordedClient returns a clientset reaching srv through the recorder,
// with a bearer token.
func recordedClient(t *testing.T, srv *replayer.Server, rec *Recorder) *kubernetes.Clientset {
	t.Helper()
	cfg := &rest.Config{Host: "http://replay.invalid", Transport: srv.Transport(), BearerToken: bearerToken}
	cfg.Wrap(rec.Wrap)
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("clientset: got error %v, want none", err)
	}
	return cs
}

// informed is one informer to run: its resource and whether it uses
// WatchList.
type informed struct {
	resource  string
	obj       runtime.Object
	watchList bool
}

// runInformers runs informers against srv through rec until every recorded
// event is available and delivered. It calls during, with the informers
// still running. It returns the informers' final states by resource.
func runInformers(t *testing.T, h *history.History, srv *replayer.Server, rec *Recorder, infs []informed, during func()) map[string][]string {
	t.Helper()
	cs := recordedClient(t, srv, rec)
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	var all []cache.SharedIndexInformer
	for _, in := range infs {
		base := cache.NewListWatchFromClient(cs.CoreV1().RESTClient(), in.resource, "", fields.Everything())
		var lw cache.ListerWatcher = base
		if !in.watchList {
			lw = cache.ToListWatcherWithWatchListSemantics(base, testutil.NoWatchList{})
		}
		inf := cache.NewSharedIndexInformer(lw, in.obj, 0, cache.Indexers{})
		all = append(all, inf)
		wg.Go(func() { inf.RunWithContext(ctx) })
	}
	for _, inf := range all {
		if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
			t.Fatalf("HasSynced: got false, want true")
		}
	}
	time.Sleep(h.Span + time.Second) // every recorded event is now available
	synctest.Wait()
	if during != nil {
		during()
	}
	states := map[string][]string{}
	for k, inf := range all {
		states[infs[k].resource] = testutil.ObjectsState(inf.GetStore().List())
	}
	cancel()
	wg.Wait()
	return states
}

func finalLine(l *history.Log) string {
	s := logSummary(l)
	return s[len(s)-1]
}

func TestRecordInformers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		watchList bool
		opts      []Option
		files     int // at least this many files
	}{
		{name: "record informer - WatchList on - recorded history equals upstream - pass", watchList: true, files: 1},
		{name: "record informer - WatchList off, LIST then WATCH - recorded history equals upstream - pass", files: 1},
		{name: "record informer - WatchList on, 4 KiB max size - rotated files build the upstream history - pass", watchList: true,
			opts: []Option{WithMaxSize(4 << 10)}, files: 5},
		{name: "record informer - WatchList off, 4 KiB max size - rotated files build the upstream history - pass",
			opts: []Option{WithMaxSize(4 << 10)}, files: 5},
	}
	h := testutil.GeneratedHistory(t, 60, 400, 1, testutil.EscapedData)
	want := h.Logs[0]
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.watchList {
				testutil.RequireWatchList(t)
			}
			synctest.Test(t, func(t *testing.T) {
				dir := t.TempDir()
				rec, err := New(filepath.Join(dir, "rec.yaml"), append([]Option{WithFlushInterval(time.Second)}, tt.opts...)...)
				if err != nil {
					t.Fatalf("New: got error %v, want none", err)
				}
				states := runInformers(t, h, replayer.New(h), rec, []informed{{resource: "configmaps", obj: &corev1.ConfigMap{}, watchList: tt.watchList}}, nil)
				if err := rec.Close(); err != nil {
					t.Fatalf("Close: got error %v, want none", err)
				}
				if got, w := "final "+strings.Join(states["configmaps"], " "), finalLine(want); got != w {
					t.Errorf("informer state: got %q, want %q", got, w)
				}
				files, got := loadDir(t, dir)
				if len(files) < tt.files {
					t.Errorf("files: got %d, want at least %d", len(files), tt.files)
				}
				sameLog(t, got.Logs[0], want)
				if text := dirText(t, dir); strings.Contains(text, bearerToken) {
					t.Errorf("files: got the bearer token in them, want it nowhere")
				}
				st := rec.Stats()
				if st.Watches == 0 || st.Events < len(want.Events) || st.Objects < len(want.Initial) {
					t.Errorf("stats: got %+v, want watches, at least %d events and %d objects", st, len(want.Events), len(want.Initial))
				}
			})
		})
	}
}

func TestRecordFlushWhileInformerWatches(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		watchList bool
	}{
		{name: "flush - WatchList stream open - the file holds every event so far - pass", watchList: true},
		{name: "flush - watch open after LIST - the file holds every event so far - pass"},
	}
	h := testutil.GeneratedHistory(t, 20, 100, 2, testutil.EscapedData)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.watchList {
				testutil.RequireWatchList(t)
			}
			synctest.Test(t, func(t *testing.T) {
				dir := t.TempDir()
				path := filepath.Join(dir, "rec.yaml")
				rec, err := New(path, WithFlushInterval(time.Hour))
				if err != nil {
					t.Fatalf("New: got error %v, want none", err)
				}
				runInformers(t, h, replayer.New(h), rec, []informed{{resource: "configmaps", obj: &corev1.ConfigMap{}, watchList: tt.watchList}}, func() {
					if err := rec.Flush(); err != nil {
						t.Fatalf("Flush: got error %v, want none", err)
					}
					_, got := loadDir(t, dir)
					sameLog(t, got.Logs[0], h.Logs[0])
					open := 0
					for _, it := range interactions(t, path) {
						if strings.Contains(it.URL, "watch=true") && it.Duration > 0 {
							open++
						}
					}
					if open == 0 {
						t.Errorf("watch interactions in the flushed file: got none, want the open one")
					}
				})
				if err := rec.Close(); err != nil {
					t.Fatalf("Close: got error %v, want none", err)
				}
			})
		})
	}
}

func TestRecordConcurrentInformers(t *testing.T) {
	t.Parallel()
	testutil.RequireWatchList(t)
	f, err := synth.Generate(synth.GenerateOptions{Objects: 120, Events: 600, Seed: 3})
	if err != nil {
		t.Fatalf("generate: got error %v, want none", err)
	}
	f.Path = "upstream.yaml"
	h, err := history.Build(f)
	if err != nil {
		t.Fatalf("build upstream: got error %v, want none", err)
	}
	tests := []struct {
		name string
		opts []Option
	}{
		{name: "concurrent informers - configmaps by WatchList, pods by LIST and WATCH - both histories recorded - pass"},
		{name: "concurrent informers - with rotation every 16 KiB - both histories recorded - pass", opts: []Option{WithMaxSize(16 << 10)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				dir := t.TempDir()
				rec, err := New(filepath.Join(dir, "rec.yaml"), append([]Option{WithFlushInterval(time.Second)}, tt.opts...)...)
				if err != nil {
					t.Fatalf("New: got error %v, want none", err)
				}
				runInformers(t, h, replayer.New(h), rec, []informed{
					{resource: "configmaps", obj: &corev1.ConfigMap{}, watchList: true},
					{resource: "pods", obj: &corev1.Pod{}},
				}, nil)
				if err := rec.Close(); err != nil {
					t.Fatalf("Close: got error %v, want none", err)
				}
				_, got := loadDir(t, dir)
				for _, wl := range h.Logs {
					gl, ok := got.Log(wl.Resource)
					if !ok {
						t.Errorf("recorded logs: got none for %s, want one", wl.Resource)
						continue
					}
					sameLog(t, gl, wl)
				}
			})
		})
	}
}

// secretHistory is a history of Secrets and ConfigMaps carrying values
// that must not be recorded.
var _ http.RoundTripper = (*transport)(nil)
