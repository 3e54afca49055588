package replayer_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/diff"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/klog/v2"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/recorder"
	"github.com/lwreplay/lwreplay/replayer"
)

// clients are the clients of one server: typed for built-in kinds,
// dynamic for custom resources.
type clients struct {
	typed   kubernetes.Interface
	dynamic dynamic.Interface
}

// newClients returns clients whose requests go through rt.
func newClients(t *testing.T, rt http.RoundTripper) clients {
	t.Helper()
	cfg := &rest.Config{Host: "http://server.invalid", Transport: rt, QPS: -1}
	typed, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("kubernetes.NewForConfig: got error %v, want none", err)
	}
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		t.Fatalf("dynamic.NewForConfig: got error %v, want none", err)
	}
	return clients{typed: typed, dynamic: dyn}
}

// rtKind is a kind the round trip carries and how a client lists and
// watches it in all namespaces.
type rtKind struct {
	gvr       schema.GroupVersionResource
	gvk       schema.GroupVersionKind
	typed     bool // built-in: served and decoded as a typed object
	newObject func() runtime.Object
	list      func(ctx context.Context, c clients, o metav1.ListOptions) (items []runtime.Object, next string, err error)
	watch     func(ctx context.Context, c clients, o metav1.ListOptions) (watch.Interface, error)
}

// objects returns pointers to the elements of s.
func objects[T any, P interface {
	*T
	runtime.Object
}](s []T) []runtime.Object {
	out := make([]runtime.Object, len(s))
	for i := range s {
		out[i] = P(&s[i])
	}
	return out
}

var widgets = widgetGVK.GroupVersion().WithResource("widgets")

var rtKinds = []rtKind{{
	gvr: corev1.SchemeGroupVersion.WithResource("pods"), gvk: corev1.SchemeGroupVersion.WithKind("Pod"), typed: true,
	newObject: func() runtime.Object { return &corev1.Pod{} },
	list: func(ctx context.Context, c clients, o metav1.ListOptions) ([]runtime.Object, string, error) {
		l, err := c.typed.CoreV1().Pods("").List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return objects(l.Items), l.GetContinue(), nil
	},
	watch: func(ctx context.Context, c clients, o metav1.ListOptions) (watch.Interface, error) {
		return c.typed.CoreV1().Pods("").Watch(ctx, o)
	},
}, {
	gvr: corev1.SchemeGroupVersion.WithResource("configmaps"), gvk: corev1.SchemeGroupVersion.WithKind("ConfigMap"), typed: true,
	newObject: func() runtime.Object { return &corev1.ConfigMap{} },
	list: func(ctx context.Context, c clients, o metav1.ListOptions) ([]runtime.Object, string, error) {
		l, err := c.typed.CoreV1().ConfigMaps("").List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return objects(l.Items), l.GetContinue(), nil
	},
	watch: func(ctx context.Context, c clients, o metav1.ListOptions) (watch.Interface, error) {
		return c.typed.CoreV1().ConfigMaps("").Watch(ctx, o)
	},
}, {
	gvr: appsv1.SchemeGroupVersion.WithResource("deployments"), gvk: appsv1.SchemeGroupVersion.WithKind("Deployment"), typed: true,
	newObject: func() runtime.Object { return &appsv1.Deployment{} },
	list: func(ctx context.Context, c clients, o metav1.ListOptions) ([]runtime.Object, string, error) {
		l, err := c.typed.AppsV1().Deployments("").List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return objects(l.Items), l.GetContinue(), nil
	},
	watch: func(ctx context.Context, c clients, o metav1.ListOptions) (watch.Interface, error) {
		return c.typed.AppsV1().Deployments("").Watch(ctx, o)
	},
}, {
	gvr: widgets, gvk: widgetGVK,
	newObject: func() runtime.Object { return &unstructured.Unstructured{} },
	list: func(ctx context.Context, c clients, o metav1.ListOptions) ([]runtime.Object, string, error) {
		l, err := c.dynamic.Resource(widgets).List(ctx, o)
		if err != nil {
			return nil, "", err
		}
		return objects(l.Items), l.GetContinue(), nil
	},
	watch: func(ctx context.Context, c clients, o metav1.ListOptions) (watch.Interface, error) {
		return c.dynamic.Resource(widgets).Watch(ctx, o)
	},
}}

// TestRoundTrip fills pods, configmaps, deployments and a custom
// resource's objects with randfill. It serves them as kube-apiserver
// would: a LIST, then a watch of ADDED, MODIFIED and DELETED events. It
// records a client-go client's traffic, saves and loads the cassette,
// builds its history and replays it. Each replayed read must give
// client-go the very objects it was first sent: LIST at the listed
// resourceVersion, WATCH from it, LIST at the newest state, a paged LIST
// and a WatchList stream.
func TestRoundTrip(t *testing.T) {
	klog.LogToStderr(false)
	klog.SetOutput(io.Discard)
	t.Cleanup(func() { klog.LogToStderr(true) })
	seeds, perKind := 6, 20
	if testing.Short() {
		seeds = len(rvBases)
	}
	for seed := range int64(seeds) {
		t.Run(fmt.Sprintf("round trip - seed %d, %d objects per kind - pass", seed, perKind), func(t *testing.T) {
			roundTrip(t, seed, perKind)
		})
	}
}

// roundTrip runs one seed's round trip.
func roundTrip(t *testing.T, seed int64, perKind int) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	g, src := newObjectGen(seed), newSource(seed)
	traffic := make([]rtTraffic, len(rtKinds))
	for i, k := range rtKinds {
		traffic[i] = g.traffic(k.gvk, k.newObject, perKind)
		if err := src.serve(collectionPath(k.gvr), k.gvk, k.typed, traffic[i]); err != nil {
			t.Fatalf("%s: serve: got error %v, want none", k.gvr.Resource, err)
		}
	}

	// Record: what client-go decodes through the recorder is what was
	// sent. So the objects survive JSON as such, and a difference found
	// after this is lwreplay's.
	path := filepath.Join(t.TempDir(), "roundtrip.yaml")
	rec, err := recorder.New(path, recorder.WithFlushInterval(0))
	if err != nil {
		t.Fatalf("recorder.New: got error %v, want none", err)
	}
	c := newClients(t, rec.Wrap(src))
	for i, k := range rtKinds {
		tr := traffic[i]
		got, _, err := k.list(ctx, c, metav1.ListOptions{})
		if err != nil {
			t.Fatalf("record %s: LIST: got error %v, want none", k.gvr.Resource, err)
		}
		checkObjects(t, "record "+k.gvr.Resource+": LIST", k, got, byKey(tr.initial))
		w, err := k.watch(ctx, c, metav1.ListOptions{ResourceVersion: tr.listRV})
		if err != nil {
			t.Fatalf("record %s: WATCH: got error %v, want none", k.gvr.Resource, err)
		}
		checkEvents(ctx, t, "record "+k.gvr.Resource+": WATCH", k, w, tr.events, true)
	}
	if err := rec.Close(); err != nil {
		t.Fatalf("recorder Close: got error %v, want none", err)
	}
	if st := rec.Stats(); st.PartialFrames != 0 || st.Watches != len(rtKinds) {
		t.Errorf("recorder stats: got %d watches, %d partial frames, want %d and 0", st.Watches, st.PartialFrames, len(rtKinds))
	}

	// Load, build and replay.
	files, err := cassette.LoadAll(path)
	if err != nil {
		t.Fatalf("LoadAll: got error %v, want none", err)
	}
	h, err := history.Build(files...)
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	c = newClients(t, replayer.New(h).Transport())
	for i, k := range rtKinds {
		tr := traffic[i]
		what := "replay " + k.gvr.Resource
		got, err := listPages(ctx, k, c, tr.listRV, 3)
		if err != nil {
			t.Fatalf("%s: LIST at %s in pages of 3: got error %v, want none", what, tr.listRV, err)
		}
		checkObjects(t, what+": LIST at "+tr.listRV+" in pages of 3", k, got, byKey(tr.initial))
		// No answer has moved this log's head past its first state yet, so
		// a WatchList from resourceVersion "" starts with the listed objects.
		w, err := k.watch(ctx, c, metav1.ListOptions{SendInitialEvents: ptr(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
		if err != nil {
			t.Fatalf("%s: WatchList: got error %v, want none", what, err)
		}
		checkInitialEvents(ctx, t, what+": WatchList", k, w, byKey(tr.initial))
		checkEvents(ctx, t, what+": WatchList", k, w, tr.events, false)
		if w, err = k.watch(ctx, c, metav1.ListOptions{ResourceVersion: tr.listRV}); err != nil {
			t.Fatalf("%s: WATCH: got error %v, want none", what, err)
		}
		checkEvents(ctx, t, what+": WATCH from "+tr.listRV, k, w, tr.events, false)
		if got, _, err = k.list(ctx, c, metav1.ListOptions{}); err != nil {
			t.Fatalf("%s: LIST at the newest state: got error %v, want none", what, err)
		}
		checkObjects(t, what+": LIST at the newest state", k, got, tr.final)
	}
}

// listPages lists k at resourceVersion rv exactly, limit objects a page,
// following continue tokens.
func listPages(ctx context.Context, k rtKind, c clients, rv string, limit int64) ([]runtime.Object, error) {
	var out []runtime.Object
	o := metav1.ListOptions{ResourceVersion: rv, ResourceVersionMatch: metav1.ResourceVersionMatchExact, Limit: limit}
	for {
		items, next, err := k.list(ctx, c, o)
		if err != nil {
			return out, err
		}
		out = append(out, items...)
		if next == "" {
			return out, nil
		}
		o = metav1.ListOptions{Limit: limit, Continue: next}
	}
}

// ptr returns a pointer to v.
func ptr[T any](v T) *T { return &v }

// byKey indexes objects by namespace/name.
func byKey(objs []runtime.Object) map[string]runtime.Object {
	out := make(map[string]runtime.Object, len(objs))
	for _, o := range objs {
		out[key(o)] = o
	}
	return out
}

// checkObjects checks that got holds exactly the objects of want.
func checkObjects(t *testing.T, what string, k rtKind, got []runtime.Object, want map[string]runtime.Object) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: got %d objects, want %d", what, len(got), len(want))
	}
	for _, o := range got {
		w, ok := want[key(o)]
		if !ok {
			t.Errorf("%s: got %s, want no such object", what, key(o))
			continue
		}
		checkObject(t, what+": "+key(o), k, o, w)
	}
}

// checkObject checks that got equals want, semantically, and prints their
// difference when it does not.
func checkObject(t *testing.T, what string, k rtKind, got, want runtime.Object) {
	t.Helper()
	if k.typed {
		got = withKind(got.DeepCopyObject(), k.gvk) // typed clients drop kind and apiVersion
	}
	if !apiequality.Semantic.DeepEqual(got, want) {
		t.Errorf("%s: got an object other than the one sent (- want, + got):\n%s", what, diff.Diff(want, got))
	}
}

// checkInitialEvents reads a WatchList stream's initial events from w, one
// ADDED event per object of want in any order, and the initial-events-end
// bookmark after them.
func checkInitialEvents(ctx context.Context, t *testing.T, what string, k rtKind, w watch.Interface, want map[string]runtime.Object) {
	t.Helper()
	for i := 0; i <= len(want); i++ {
		var got watch.Event
		select {
		case e, ok := <-w.ResultChan():
			if !ok {
				t.Fatalf("%s: got the stream ended after %d initial events, want %d and a bookmark", what, i, len(want))
			}
			got = e
		case <-ctx.Done():
			t.Fatalf("%s: got %d initial events before %v, want %d and a bookmark", what, i, ctx.Err(), len(want))
		}
		if i == len(want) {
			m, err := meta.Accessor(got.Object)
			if got.Type != watch.Bookmark || err != nil || m.GetAnnotations()[metav1.InitialEventsAnnotationKey] != "true" {
				t.Errorf("%s: after %d initial events: got %s %v, want the initial-events-end BOOKMARK", what, i, got.Type, got.Object)
			}
			return
		}
		if got.Type != watch.Added {
			t.Errorf("%s: initial event %d: got type %s, want ADDED", what, i, got.Type)
			continue
		}
		wo, ok := want[key(got.Object)]
		if !ok {
			t.Errorf("%s: initial event %d: got %s, want no such object", what, i, key(got.Object))
			continue
		}
		checkObject(t, fmt.Sprintf("%s: initial event %d (%s)", what, i, key(wo)), k, got.Object, wo)
	}
}

// checkEvents reads len(want) events from w and checks them against want,
// in order. With ends, the stream must then end (the recorded one did);
// else it is stopped.
func checkEvents(ctx context.Context, t *testing.T, what string, k rtKind, w watch.Interface, want []rtEvent, ends bool) {
	t.Helper()
	defer w.Stop()
	for i, e := range want {
		select {
		case got, ok := <-w.ResultChan():
			if !ok {
				t.Errorf("%s: got the stream ended after %d events, want %d", what, i, len(want))
				return
			}
			if got.Type != e.typ {
				t.Errorf("%s: event %d: got type %s, want %s", what, i, got.Type, e.typ)
				continue
			}
			checkObject(t, fmt.Sprintf("%s: event %d (%s %s)", what, i, e.typ, key(e.obj)), k, got.Object, e.obj)
		case <-ctx.Done():
			t.Fatalf("%s: got %d events before %v, want %d", what, i, ctx.Err(), len(want))
		}
	}
	if !ends {
		return
	}
	select {
	case got, ok := <-w.ResultChan():
		if ok {
			t.Errorf("%s: got an extra %s event, want the stream to end", what, got.Type)
		}
	case <-ctx.Done():
		t.Errorf("%s: got the stream open at %v, want it ended", what, ctx.Err())
	}
}
