package replayer

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	goruntime "runtime"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// configmapHistory is a generated history of objects configmaps (and
// events changes of them after its list).
func configmapHistory(b *testing.B, objects, events int) *history.History {
	b.Helper()
	f, err := synth.Generate(synth.GenerateOptions{Objects: objects, Events: events, Seed: 1, Kinds: []string{"configmaps"}, PageSize: 500})
	if err != nil {
		b.Fatalf("Generate: got error %v, want none", err)
	}
	f.Path = "bench.yaml"
	h, err := history.Build(f)
	if err != nil {
		b.Fatalf("Build: got error %v, want none", err)
	}
	if got := len(h.Logs[0].Initial); got != objects {
		b.Fatalf("objects: got %d, want %d", got, objects)
	}
	return h
}

// writeRequests returns n writes of configmaps on l's state. Creates and
// unconditional updates (PUT, no resourceVersion) of the listed objects
// take turns. Each update is a listed object with a data key set.
func writeRequests(b *testing.B, l *history.Log, n int) []*http.Request {
	b.Helper()
	reqs := make([]*http.Request, n)
	for i := range reqs {
		o := l.Initial[(i/2)%len(l.Initial)]
		if i%2 == 0 {
			body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w-%d"},"data":{"k":"v"}}`, i)
			reqs[i] = httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/"+o.Namespace+"/configmaps", strings.NewReader(body))
		} else {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(o.WithKind("ConfigMap", "v1")); err != nil {
				b.Fatalf("decode %s: got error %v, want none", o.Key(), err)
			}
			u.SetResourceVersion("")
			if err := unstructured.SetNestedField(u.Object, fmt.Sprint(i), "data", "written"); err != nil {
				b.Fatalf("set data of %s: got error %v, want none", o.Key(), err)
			}
			body, err := u.MarshalJSON()
			if err != nil {
				b.Fatalf("encode %s: got error %v, want none", o.Key(), err)
			}
			reqs[i] = httptest.NewRequest(http.MethodPut, "/api/v1/namespaces/"+o.Namespace+"/configmaps/"+o.Name, bytes.NewReader(body))
		}
		reqs[i].Header.Set("Content-Type", "application/json")
	}
	return reqs
}

// BenchmarkWrite measures writes on a replay whose served state holds n
// configmaps, creates and updates alternating. It runs under PaceMax,
// every recorded event served first: each write lands at the end of its
// log. Run it with -benchtime 10000x for the 10,000 writes of issue [J]'s
// acceptance. The ns/op, B/op and allocs/op are per write, the HTTP
// request and its JSON answer included. The kept-B/op is the heap a write
// leaves live (the served history's growth). Compare
// BenchmarkDecodeObject.
func BenchmarkWrite(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			h := configmapHistory(b, n, 0)
			s := New(h)
			reqs := writeRequests(b, h.Logs[0], b.N)
			before := heapAfterGC()
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, reqs[i])
				want := http.StatusCreated
				if i%2 == 1 {
					want = http.StatusOK
				}
				if rec.Code != want {
					b.Fatalf("write %d (%s): got %d %s, want %d", i, reqs[i].Method, rec.Code, rec.Body, want)
				}
			}
			b.StopTimer()
			reqs = nil
			b.ReportMetric(float64(int64(heapAfterGC())-int64(before))/float64(b.N), "kept-B/op")
			goruntime.KeepAlive(s)
		})
	}
}

// heapAfterGC returns the bytes of live heap objects after a collection.
func heapAfterGC() uint64 {
	goruntime.GC()
	var m goruntime.MemStats
	goruntime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkWriteBeforeRecorded measures the same writes on 5,000
// configmaps when later recorded events are still to be served after
// each. (Nothing was read: the head stays before them.) So each write
// moves them up, and the history is rebuilt. That is the rare case: a
// paced replay (its clock a millionth of real time here, so that no
// recorded event comes while it runs).
func BenchmarkWriteBeforeRecorded(b *testing.B) {
	for _, later := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("objects=5000/later=%d", later), func(b *testing.B) {
			h := configmapHistory(b, 5000, later)
			s := New(h, WithPace(Pace{Mode: PaceRecorded, Factor: 1e-6})) // the recorded events are still to come
			reqs := writeRequests(b, h.Logs[0], b.N)
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, reqs[i])
				if rec.Code != http.StatusCreated && rec.Code != http.StatusOK {
					b.Fatalf("write %d (%s): got %d %s, want 201 or 200", i, reqs[i].Method, rec.Code, rec.Body)
				}
			}
			b.StopTimer()
			l := s.Served().Logs[0]
			placed := 0
			for _, ev := range l.Events {
				if ev.ByTarget() {
					placed++
				}
			}
			if placed != b.N {
				b.Fatalf("writes placed: got %d, want %d", placed, b.N)
			}
			if p := s.store.head(l); p >= l.End() {
				b.Fatalf("head: got %d (the end), want recorded events after it", p)
			}
		})
	}
}

// BenchmarkDecodeObject measures decoding once the object an update of
// BenchmarkWrite sends (a listed configmap, with kind and apiVersion). It
// decodes its JSON into unstructured, and its protobuf into a typed
// ConfigMap (what controller-runtime sends). That is the floor a write is
// compared with.
func BenchmarkDecodeObject(b *testing.B) {
	h := configmapHistory(b, 500, 0)
	raw := h.Logs[0].Initial[0].WithKind("ConfigMap", "v1")
	var cm corev1.ConfigMap
	if err := runtime.DecodeInto(scheme.Codecs.UniversalDecoder(), raw, &cm); err != nil {
		b.Fatalf("decode: got error %v, want none", err)
	}
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		b.Fatal("protobuf serializer: got none, want one")
	}
	cm.APIVersion, cm.Kind = "v1", "ConfigMap"
	var pb bytes.Buffer
	if err := info.Serializer.Encode(&cm, &pb); err != nil {
		b.Fatalf("encode: got error %v, want none", err)
	}
	b.Run(fmt.Sprintf("json-unstructured/bytes=%d", len(raw)), func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			u := &unstructured.Unstructured{}
			if err := u.UnmarshalJSON(raw); err != nil || u.GetName() != cm.Name {
				b.Fatalf("decode: got %q, %v, want %q", u.GetName(), err, cm.Name)
			}
		}
	})
	b.Run(fmt.Sprintf("protobuf-configmap/bytes=%d", pb.Len()), func(b *testing.B) {
		b.ReportAllocs()
		for range b.N {
			obj, _, err := info.Serializer.Decode(pb.Bytes(), nil, nil)
			if got, ok := obj.(*corev1.ConfigMap); err != nil || !ok || got.Name != cm.Name {
				b.Fatalf("decode: got %v, %v, want ConfigMap %q", obj, err, cm.Name)
			}
		}
	})
}
