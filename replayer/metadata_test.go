package replayer

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// The Accept headers of client-go's metadata client (k8s.io/client-go
// metadata/metadata.go: List; Get and Watch).
const (
	metadataListAccept = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1,application/json"
	metadataAccept1    = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1,application/json"
)

func TestMetadataAcceptHeader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		accept       string
		want         string // kind apiVersion; "" for none
		unacceptable bool
	}{
		{name: "accept - metadata client LIST - pass", accept: metadataListAccept, want: "PartialObjectMetadataList meta.k8s.io/v1"},
		{name: "accept - metadata client GET and WATCH - pass", accept: metadataAccept1, want: "PartialObjectMetadata meta.k8s.io/v1"},
		{name: "accept - v1beta1 - pass", accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1", want: "PartialObjectMetadataList meta.k8s.io/v1beta1"},
		{name: "accept - plain JSON first - pass", accept: "application/json,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"},
		{name: "accept - kubectl's Table - pass", accept: kubectlAccept},
		{name: "accept - other group, JSON fallback - pass", accept: "application/json;as=PartialObjectMetadata;g=example.com;v=v1,application/json"},
		{name: "accept - other group, metadata fallback - pass", accept: "application/json;as=PartialObjectMetadata;g=example.com;v=v1,application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1", want: "PartialObjectMetadata meta.k8s.io/v1"},
		{name: "accept - other group, no fallback - fail", accept: "application/json;as=PartialObjectMetadata;g=example.com;v=v1", unacceptable: true},
		{name: "accept - other version, no fallback - fail", accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v2", unacceptable: true},
		{name: "accept - unknown kind, no fallback - fail", accept: "application/json;as=Bogus;g=meta.k8s.io;v=v1", unacceptable: true},
		{name: "accept - protobuf only, left to the JSON check - pass", accept: "application/vnd.kubernetes.protobuf;as=PartialObjectMetadata;g=meta.k8s.io;v=v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			mv, unacceptable := metadataAccept(tt.accept)
			got := ""
			if mv != nil {
				got = mv.kind + " " + mv.apiVersion
			}
			if got != tt.want || unacceptable != tt.unacceptable {
				t.Errorf("got %q unacceptable=%v, want %q unacceptable=%v", got, unacceptable, tt.want, tt.unacceptable)
			}
		})
	}
}

// partialKeys renders a PartialObjectMetadataList's items, each checked
// to be a PartialObjectMetadata in apiVersion, as "ns/name@rv".
func partialKeys(t *testing.T, items []metav1.PartialObjectMetadata, apiVersion string) []string {
	t.Helper()
	var out []string
	for _, it := range items {
		if it.Kind != "PartialObjectMetadata" || it.APIVersion != apiVersion {
			t.Errorf("item %s/%s: got %s %s, want PartialObjectMetadata %s", it.Namespace, it.Name, it.APIVersion, it.Kind, apiVersion)
		}
		out = append(out, it.Namespace+"/"+it.Name+"@"+it.ResourceVersion)
	}
	return out
}

func TestMetadataAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		target     string
		accept     string
		code       int
		kind       string
		apiVersion string
		rv         string
		items      []string
		contains   []string
	}{
		{name: "metadata list - metadata client - pass", target: "/api/v1/configmaps", accept: metadataListAccept, code: 200,
			kind: "PartialObjectMetadataList", apiVersion: "meta.k8s.io/v1", rv: "1003", items: []string{"ns1/a@1001", "ns1/b@1002", "ns2/c@1003"}},
		{name: "metadata list - at an old resourceVersion - pass", target: "/api/v1/configmaps?resourceVersion=1003&resourceVersionMatch=Exact", accept: metadataListAccept, code: 200,
			kind: "PartialObjectMetadataList", apiVersion: "meta.k8s.io/v1", rv: "1003", items: []string{"ns1/a@1001", "ns1/b@1002", "ns2/c@1003"}},
		{name: "metadata list - v1beta1 - pass", target: "/api/v1/namespaces/ns1/configmaps", accept: "application/json;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1beta1", code: 200,
			kind: "PartialObjectMetadataList", apiVersion: "meta.k8s.io/v1beta1", rv: "1003", items: []string{"ns1/a@1001", "ns1/b@1002"}},
		{name: "metadata list - empty, items null - pass", target: "/api/v1/namespaces/none/configmaps", accept: metadataListAccept, code: 200,
			kind: "PartialObjectMetadataList", apiVersion: "meta.k8s.io/v1", rv: "1003", contains: []string{`"items":null`}},
		{name: "metadata list - asked as one object - fail", target: "/api/v1/configmaps", accept: metadataAccept1, code: 406, kind: "Status", apiVersion: "v1",
			contains: []string{`"message":"you requested PartialObjectMetadata, but the requested object is a list (*core.ConfigMapList)"`, `"reason":"NotAcceptable"`}},
		{name: "metadata list - other group, no fallback - fail", target: "/api/v1/configmaps", accept: "application/json;as=PartialObjectMetadataList;g=example.com;v=v1", code: 406,
			kind: "Status", apiVersion: "v1", contains: []string{`"reason":"NotAcceptable"`}},
		{name: "metadata list - other group, JSON fallback - pass", target: "/api/v1/namespaces/ns1/configmaps", accept: "application/json;as=PartialObjectMetadataList;g=example.com;v=v1,application/json", code: 200,
			kind: "ConfigMapList", apiVersion: "v1", rv: "1003"},
		{name: "metadata get - metadata client - pass", target: "/api/v1/namespaces/ns1/configmaps/b", accept: metadataAccept1, code: 200,
			kind: "PartialObjectMetadata", apiVersion: "meta.k8s.io/v1", rv: "1002",
			contains: []string{`{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"b","namespace":"ns1",`, `"labels":{"app":"y"}}}`}},
		{name: "metadata get - missing object - fail", target: "/api/v1/namespaces/ns1/configmaps/nope", accept: metadataAccept1, code: 404, kind: "Status", apiVersion: "v1"},
		{name: "metadata get - asked as a list - fail", target: "/api/v1/namespaces/ns1/configmaps/b", accept: metadataListAccept, code: 406, kind: "Status", apiVersion: "v1",
			contains: []string{`"message":"you requested PartialObjectMetadataList, but the requested object is not a list (*core.ConfigMap)"`}},
		{name: "metadata get - unknown kind, no fallback - fail", target: "/api/v1/namespaces/ns1/configmaps/b", accept: "application/json;as=Bogus;g=meta.k8s.io;v=v1", code: 406,
			kind: "Status", apiVersion: "v1"},
	}
	h := smallHistory(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				rec := get(New(h), tt.target, tt.accept)
				if rec.Code != tt.code {
					t.Fatalf("got code %d, want %d: %s", rec.Code, tt.code, rec.Body)
				}
				if ct := rec.Header().Get("Content-Type"); ct != "application/json" {
					t.Errorf("got Content-Type %q, want application/json", ct)
				}
				var got struct {
					metav1.TypeMeta
					Metadata struct {
						ResourceVersion string `json:"resourceVersion"`
					} `json:"metadata"`
					Items []metav1.PartialObjectMetadata `json:"items"`
				}
				if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
					t.Fatalf("got body %s: %v, want JSON", rec.Body, err)
				}
				if got.Kind != tt.kind || got.APIVersion != tt.apiVersion || (tt.code == 200 && got.Metadata.ResourceVersion != tt.rv) {
					t.Errorf("got %s %s at rv %q, want %s %s at rv %q", got.APIVersion, got.Kind, got.Metadata.ResourceVersion, tt.apiVersion, tt.kind, tt.rv)
				}
				if got.Kind == "PartialObjectMetadataList" {
					if keys := partialKeys(t, got.Items, tt.apiVersion); !reflect.DeepEqual(keys, tt.items) {
						t.Errorf("got items %q, want %q", keys, tt.items)
					}
				}
				for _, c := range tt.contains {
					if !strings.Contains(rec.Body.String(), c) {
						t.Errorf("got body %s, want it to contain %s", rec.Body, c)
					}
				}
			})
		})
	}
}

// TestMetadataListPages follows a paged metadata LIST, as the metadata
// client's pager does. Each page carries the continue token and the
// remaining count. Each item carries the object's whole ObjectMeta, as
// the plain LIST of the same page shows it.
func TestMetadataListPages(t *testing.T) {
	t.Parallel()
	srv := New(smallHistory(t), WithoutWatchCache())
	var got []metav1.ObjectMeta
	target := "/api/v1/configmaps?limit=1&resourceVersion=1005&resourceVersionMatch=Exact"
	for page := 1; ; page++ {
		rec := get(srv, target, metadataListAccept)
		if rec.Code != 200 {
			t.Fatalf("page %d: got code %d, want 200: %s", page, rec.Code, rec.Body)
		}
		var l metav1.PartialObjectMetadataList
		if err := json.Unmarshal(rec.Body.Bytes(), &l); err != nil {
			t.Fatalf("page %d: got body %s: %v, want a PartialObjectMetadataList", page, rec.Body, err)
		}
		if l.Kind != "PartialObjectMetadataList" || l.ResourceVersion != "1005" || len(l.Items) != 1 {
			t.Fatalf("page %d: got %s at rv %q with %d items, want PartialObjectMetadataList at rv 1005 with 1", page, l.Kind, l.ResourceVersion, len(l.Items))
		}
		partialKeys(t, l.Items, "meta.k8s.io/v1")
		got = append(got, l.Items[0].ObjectMeta)
		if l.Continue == "" {
			if l.RemainingItemCount != nil {
				t.Errorf("last page: got remainingItemCount %d, want none", *l.RemainingItemCount)
			}
			break
		}
		if want := int64(4 - page); l.RemainingItemCount == nil || *l.RemainingItemCount != want {
			t.Errorf("page %d: got remainingItemCount %v, want %d", page, l.RemainingItemCount, want)
		}
		if page > 4 {
			t.Fatalf("got more than 4 pages of 1 for 4 objects")
		}
		target = "/api/v1/configmaps?limit=1&continue=" + l.Continue
	}
	rec := get(srv, "/api/v1/configmaps?resourceVersion=1005&resourceVersionMatch=Exact", "application/json")
	var full corev1.ConfigMapList
	if err := json.Unmarshal(rec.Body.Bytes(), &full); err != nil {
		t.Fatalf("plain list: got body %s: %v, want a ConfigMapList", rec.Body, err)
	}
	var want []metav1.ObjectMeta
	for _, o := range full.Items {
		want = append(want, o.ObjectMeta)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got metadata %+v, want the objects' %+v", got, want)
	}
}

// watchPartial reads a watch answer (in a bubble, to its timeout): each
// frame's type, object kind and apiVersion, key@rv and annotations.
func watchPartial(t *testing.T, srv *Server, target, accept string) []string {
	t.Helper()
	types, objects := watchAnswer(t, srv, target, accept)
	out := make([]string, 0, len(types))
	for i, typ := range types {
		var o metav1.PartialObjectMetadata
		if err := json.Unmarshal(objects[i], &o); err != nil {
			t.Fatalf("frame %d: %s: %v", i, objects[i], err)
		}
		var ann []string
		for k := range o.Annotations {
			ann = append(ann, k)
		}
		sort.Strings(ann)
		out = append(out, fmt.Sprintf("%s %s %s %s/%s@%s %s", typ, o.APIVersion, o.Kind, o.Namespace, o.Name, o.ResourceVersion, strings.Join(ann, ",")))
	}
	return out
}

func TestMetadataWatch(t *testing.T) {
	t.Parallel()
	const pom = "meta.k8s.io/v1 PartialObjectMetadata"
	tests := []struct {
		name   string
		target string
		accept string
		want   []string
	}{
		{name: "metadata watch - metadata client, from an old RV - pass", target: "/api/v1/namespaces/ns1/configmaps?watch=true&resourceVersion=1004&timeoutSeconds=5", accept: metadataAccept1,
			want: []string{
				"ADDED " + pom + " ns1/d@1005 ",
				"MODIFIED " + pom + " ns1/b@1006 ",
				"MODIFIED " + pom + " ns1/a@1007 ",
				"DELETED " + pom + " ns1/d@1008 ",
			}},
		{name: "metadata watchlist - metadata client, bookmarks too - pass",
			target: "/api/v1/namespaces/ns1/configmaps?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=5",
			accept: metadataAccept1,
			want: []string{
				"ADDED " + pom + " ns1/a@1001 ",
				"ADDED " + pom + " ns1/b@1002 ",
				"BOOKMARK " + pom + " /@1003 k8s.io/initial-events-end",
				"MODIFIED " + pom + " ns1/a@1004 ",
				"ADDED " + pom + " ns1/d@1005 ",
				"MODIFIED " + pom + " ns1/b@1006 ",
				"MODIFIED " + pom + " ns1/a@1007 ",
				"DELETED " + pom + " ns1/d@1008 ",
				"BOOKMARK " + pom + " /@1009 ", // 2 s before the timeout
			}},
		{name: "metadata watch - asked as a list, objects sent as they are - pass", target: "/api/v1/namespaces/ns1/configmaps?watch=true&resourceVersion=1007&timeoutSeconds=5", accept: metadataListAccept,
			want: []string{"DELETED v1 ConfigMap ns1/d@1008 "}},
		{name: "metadata watch - too old, the ERROR Status sent as it is - fail", target: "/api/v1/configmaps?watch=true&resourceVersion=1&timeoutSeconds=5", accept: metadataAccept1,
			want: []string{"ERROR v1 Status /@ "}},
	}
	h := smallHistory(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				got := watchPartial(t, New(h, WithCompaction("1002")), tt.target, tt.accept)
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("got frames\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
				}
			})
		})
	}
}

func TestMetadataWatchNotAcceptable(t *testing.T) {
	t.Parallel()
	rec := get(New(smallHistory(t)), "/api/v1/configmaps?watch=true&timeoutSeconds=1", "application/json;as=PartialObjectMetadata;g=example.com;v=v1")
	if rec.Code != 406 || !strings.Contains(rec.Body.String(), `"reason":"NotAcceptable"`) {
		t.Errorf("watch - other group, no fallback - fail: got code %d %s, want 406 NotAcceptable", rec.Code, rec.Body)
	}
}

// TestMetadataInformerConverges runs client-go's metadata informer
// (metadatainformer, as controller-runtime's OnlyMetadata does) on the
// in-process transport. It syncs to the history's final state: the same
// keys at the same resourceVersions. The metadata client supports
// WatchList semantics (it does not implement
// IsWatchListSemanticsUnSupported). So the informer's reflector opens
// with a WatchList while the WatchListClient gate is on (client-go
// v0.35's default). The LIST-then-WATCH path is the same ListWatch opted
// out (testutil.NoWatchList).
func TestMetadataInformerConverges(t *testing.T) {
	t.Parallel()
	gvr := schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	tests := []struct {
		name      string
		history   func(testing.TB) *history.History
		watchList bool
		first     string // the first request
	}{
		{name: "metadata informer - WatchList on, small history - final state - pass", history: smallHistory, watchList: true, first: "WATCHLIST rv="},
		{name: "metadata informer - WatchList off, small history - final state - pass", history: smallHistory, first: "LIST rv=0 limit=500"},
		{name: "metadata informer - WatchList on, generated history - final state - pass",
			history: func(t testing.TB) *history.History {
				return testutil.GeneratedHistory(t, 60, 400, 11, testutil.LabelFlips)
			}, watchList: true, first: "WATCHLIST rv="},
		{name: "metadata informer - WatchList off, generated history - final state - pass",
			history: func(t testing.TB) *history.History {
				return testutil.GeneratedHistory(t, 60, 400, 12, testutil.LabelFlips)
			}, first: "LIST rv=0 limit=500"},
	}
	for _, tt := range tests {
		h := tt.history(t)
		l := h.Logs[0]
		t.Run(tt.name, func(t *testing.T) {
			if tt.watchList {
				testutil.RequireWatchList(t)
			}
			synctest.Test(t, func(t *testing.T) {
				srv := New(h)
				kp := &kindPeek{rt: srv.Transport()}
				rl := &requestLog{rt: kp}
				mc, err := metadata.NewForConfig(&rest.Config{Host: testHost, Transport: rl})
				if err != nil {
					t.Fatalf("metadata client: got error %v, want none", err)
				}
				ctx, cancel := context.WithCancel(t.Context())
				var inf cache.SharedIndexInformer
				var wg sync.WaitGroup
				if tt.watchList {
					f := metadatainformer.NewSharedInformerFactory(mc, 0)
					inf = f.ForResource(gvr).Informer()
					f.Start(ctx.Done())
					defer f.Shutdown()
				} else {
					res := mc.Resource(gvr)
					lw := cache.ToListWatcherWithWatchListSemantics(&cache.ListWatch{
						ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
							return res.List(ctx, o)
						},
						WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
							return res.Watch(ctx, o)
						},
					}, testutil.NoWatchList{})
					inf = cache.NewSharedIndexInformer(lw, &metav1.PartialObjectMetadata{}, 0, cache.Indexers{})
					wg.Go(func() { inf.RunWithContext(ctx) })
				}
				defer wg.Wait()
				defer cancel()
				if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
					t.Fatalf("HasSynced: got false, want true")
				}
				time.Sleep(h.Span + time.Second) // every event recorded is now available
				synctest.Wait()
				objs := inf.GetStore().List()
				for _, o := range objs {
					if _, ok := o.(*metav1.PartialObjectMetadata); !ok {
						t.Fatalf("store object: got %T, want *v1.PartialObjectMetadata", o)
					}
				}
				if got, want := testutil.ObjectsState(objs), finalState(l); !equalStrings(got, want) {
					t.Errorf("informer state:\ngot  %q\nwant %q", got, want)
				}
				if got := rl.requests(); len(got) == 0 || got[0] != tt.first {
					t.Errorf("requests: got %q, want first %q", got, tt.first)
				}
				cancel()
				wg.Wait()
				kinds := kp.seen()
				if len(kinds) == 0 {
					t.Errorf("answers' kinds: got none, want PartialObjectMetadata(List)")
				}
				for _, k := range kinds {
					if k != "PartialObjectMetadataList" && k != "PartialObjectMetadata" {
						t.Errorf("answers' kinds: got %q, want PartialObjectMetadata(List) only", kinds)
						break
					}
				}
			})
		})
	}
}

// kindPeek wraps a RoundTripper and notes the first kind each answer's
// body shows, as the client reads it. That is a LIST's kind, or a watch's
// first event object's.
type kindPeek struct {
	rt    http.RoundTripper
	mu    sync.Mutex
	kinds []string
}

func (k *kindPeek) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := k.rt.RoundTrip(req)
	if err == nil {
		resp.Body = &peekBody{rc: resp.Body, k: k}
	}
	return resp, err
}

func (k *kindPeek) seen() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]string(nil), k.kinds...)
}

type peekBody struct {
	rc   io.ReadCloser
	k    *kindPeek
	head []byte
	done bool
}

var kindField = regexp.MustCompile(`"kind":"([^"]*)"`)

func (b *peekBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if !b.done {
		b.head = append(b.head, p[:n]...)
		if m := kindField.FindSubmatch(b.head); m != nil {
			b.done = true
			b.k.mu.Lock()
			b.k.kinds = append(b.k.kinds, string(m[1]))
			b.k.mu.Unlock()
		}
	}
	return n, err
}

func (b *peekBody) Close() error { return b.rc.Close() }
