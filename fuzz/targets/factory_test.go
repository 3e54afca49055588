package targets

import (
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
	"github.com/lwreplay/lwreplay/synth"
)

// widgets is a custom resource, one client-go's informer factory does not
// know.
var widgets = history.Resource{Group: "example.com", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true}

// builtCassette returns a cassette of the objects obj makes: six in two
// namespaces. Then two are changed, two deleted, one created, and one
// created again under a deleted one's name.
func builtCassette(t *testing.T, obj func(ns, name, uid string, n int32) runtime.Object) *cassette.File {
	t.Helper()
	b := synth.NewBuilder()
	ns := []string{"alpha", "beta"}
	for i := range 6 {
		name := fmt.Sprintf("obj-%d", i)
		b.Add(obj(ns[i%2], name, name, 1))
	}
	b.Snapshot()
	b.Update(obj("alpha", "obj-0", "obj-0", 2))
	b.Delete(obj("alpha", "obj-2", "obj-2", 1))
	b.Update(obj("beta", "obj-1", "obj-1", 3))
	b.Add(obj("alpha", "obj-6", "obj-6", 1))
	b.Delete(obj("beta", "obj-3", "obj-3", 1))
	b.Add(obj("beta", "obj-3", "obj-3-again", 5))
	f, err := b.Cassette(synth.CassetteOptions{BookmarkEvery: 2})
	if err != nil {
		t.Fatalf("cassette: got error %v, want none", err)
	}
	f.Path = "built.yaml"
	return f
}

// builtHistory builds the history of res: deployments as built, or widgets
// as configmaps renamed (paths, kinds and apiVersions).
func builtHistory(t *testing.T, res history.Resource) *history.History {
	t.Helper()
	var f *cassette.File
	switch res {
	case deployments:
		f = builtCassette(t, func(ns, name, uid string, n int32) runtime.Object {
			return &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid)}, Spec: appsv1.DeploymentSpec{Replicas: &n}}
		})
	case widgets:
		f = builtCassette(t, func(ns, name, uid string, n int32) runtime.Object {
			return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid)}, Data: map[string]string{"n": fmt.Sprint(n)}}
		})
		rename := strings.NewReplacer(`"kind":"ConfigMapList"`, `"kind":"WidgetList"`, `"kind":"ConfigMap"`, `"kind":"Widget"`,
			`"apiVersion":"v1"`, `"apiVersion":"example.com/v1"`)
		for i := range f.Interactions {
			in := &f.Interactions[i]
			in.URL = strings.Replace(in.URL, "/api/v1/configmaps", "/apis/example.com/v1/widgets", 1)
			in.Body = []byte(rename.Replace(string(in.Body)))
		}
	default:
		t.Fatalf("built history: no cassette of %s", res)
	}
	h, err := history.Build(f)
	if err != nil {
		t.Fatalf("build history of %s: got error %v, want none", res, err)
	}
	if _, ok := h.Log(res); !ok {
		t.Fatalf("history: got logs %v, want one of %s", h.Logs, res)
	}
	return h
}

// TestTargetsAnyResource runs the built-in informer targets over a
// resource of a named group and a custom resource. factory-shared serves
// the custom resource from an informer of unstructured objects. Every
// invariant holds and the store ends as the truth.
func TestTargetsAnyResource(t *testing.T) {
	t.Parallel()
	for _, res := range []history.Resource{deployments, widgets} {
		h := builtHistory(t, res)
		for _, name := range append([]string{"informer"}, controllerTargets...) {
			target, _ := Lookup(name)
			for _, lvl := range []level.Level{level.Typed, level.Wire} {
				for _, watchList := range []bool{true, false} {
					t.Run(fmt.Sprintf("%s - %s, %s, WatchList %v - every invariant holds - pass", name, res, lvl, watchList), func(t *testing.T) {
						obs := harness.Observe(t, harness.Spec{History: h, Resource: res, Target: target, WatchList: watchList, Level: lvl})
						for inv, err := range oracle.Judge(obs) {
							if err != nil {
								t.Errorf("%s: got %v, want it to hold", inv, err)
							}
						}
						if want := len(obs.TruthLog.StateAt(obs.TruthLog.End())); len(obs.Store) != want || want == 0 {
							t.Errorf("store: got %d objects, want %d (> 0)", len(obs.Store), want)
						}
					})
				}
			}
		}
	}
}

func TestSharedInformerOf(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name          string
		res           history.Resource
		wantGenerated bool // client-go's generated informer, not one of unstructured objects
	}{
		{"shared informer - configmaps - client-go's generated informer, shared - pass", harness.ConfigMaps, true},
		{"shared informer - deployments.apps - client-go's generated informer, shared - pass", deployments, true},
		{"shared informer - a custom resource - an informer of unstructured objects, shared - pass", widgets, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := &harness.Env{Config: &rest.Config{Host: level.ReplayHost}, Resource: tc.res, Level: level.Wire, Probe: harness.NewProbe(time.Now())}
			factory := informers.NewSharedInformerFactory(fake.NewClientset(), 0)
			a, err := sharedInformerOf(factory, env)
			if err != nil {
				t.Fatalf("first: got error %v, want none", err)
			}
			b, err := sharedInformerOf(factory, env)
			if err != nil {
				t.Fatalf("second: got error %v, want none", err)
			}
			if _, unstructured := a.(unstructuredInformer); unstructured == tc.wantGenerated {
				t.Errorf("informer: got %T, want client-go's generated one: %v", a, tc.wantGenerated)
			}
			obj := &unstructured.Unstructured{}
			obj.SetNamespace("ns")
			obj.SetName("a")
			if err := a.Informer().GetIndexer().Add(obj); err != nil {
				t.Fatalf("add: got error %v, want none", err)
			}
			if got, err := b.Lister().ByNamespace("ns").Get("a"); err != nil || got == nil {
				t.Errorf("second's lister: got %v, %v, want the object added to the first's store", got, err)
			}
		})
	}
}

// recordingQueue is a workqueue that records the keys taken off it.
type recordingQueue struct {
	workqueue.TypedInterface[string]
	got []string
}

// Get takes a key off the queue and records it.
func (q *recordingQueue) Get() (string, bool) {
	key, shutdown := q.TypedInterface.Get()
	if !shutdown {
		q.got = append(q.got, key)
	}
	return key, shutdown
}

func TestControllerHandlers(t *testing.T) {
	t.Parallel()
	cm := testutil.ConfigMap("ns", "a", "7")
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", ResourceVersion: "3"}}
	tests := []struct {
		name     string
		stored   []any
		deliver  func(h cache.ResourceEventHandler)
		wantKeys []string // keys queued, in order
		wantErr  string   // "" for no error recorded
	}{
		{name: "controller - add, update, delete - keys queued once each pending, looked up - pass", stored: []any{cm},
			deliver:  func(h cache.ResourceEventHandler) { h.OnAdd(cm, true); h.OnUpdate(cm, cm); h.OnDelete(cm) },
			wantKeys: []string{"ns/a"}},
		{name: "controller - tombstone of a deleted object - its key queued, absent is fine - pass",
			deliver: func(h cache.ResourceEventHandler) {
				h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/gone", Obj: cm})
			},
			wantKeys: []string{"ns/gone"}},
		{name: "controller - cluster-scoped object - looked up by name - pass", stored: []any{node},
			deliver:  func(h cache.ResourceEventHandler) { h.OnAdd(node, false) },
			wantKeys: []string{"n1"}},
		{name: "controller - no object - no key, an error recorded - fail",
			deliver: func(h cache.ResourceEventHandler) { h.OnAdd("not an object", false) },
			wantErr: "controller: key of string"},
		{name: "controller - a key of three parts - an error recorded - fail",
			deliver:  func(h cache.ResourceEventHandler) { h.OnDelete(cache.DeletedFinalStateUnknown{Key: "a/b/c", Obj: cm}) },
			wantKeys: []string{"a/b/c"}, wantErr: `controller: key "a/b/c"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			probe := harness.NewProbe(time.Now())
			queue := &recordingQueue{TypedInterface: workqueue.NewTyped[string]()}
			indexer := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
			for _, o := range tc.stored {
				if err := indexer.Add(o); err != nil {
					t.Fatalf("store: got error %v, want none", err)
				}
			}
			tc.deliver(enqueueKeys(queue, probe))
			queue.ShutDown() // the keys queued drain, then the worker ends
			lister := cache.NewGenericLister(indexer, schema.GroupResource{Resource: "configmaps"})
			for lookUpKeys(queue, lister, probe) {
				// one key at a time
			}
			keys := queue.got
			if fmt.Sprint(keys) != fmt.Sprint(tc.wantKeys) {
				t.Errorf("keys: got %v, want %v", keys, tc.wantKeys)
			}
			errs := strings.Join(probe.Errors(), "; ")
			if (tc.wantErr == "") != (errs == "") || !strings.Contains(errs, tc.wantErr) {
				t.Errorf("errors: got %q, want one containing %q", errs, tc.wantErr)
			}
		})
	}
}

// deployments, apps v1, is a resource of a generated informer.
var deployments = history.Resource{Group: "apps", Version: "v1", Resource: "deployments", Kind: "Deployment", Namespaced: true}
