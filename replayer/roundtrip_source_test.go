package replayer_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
)

// source is a hand-made kube-apiserver for the round trip. Per collection
// path, it has one LIST answer and one watch stream, encoded as
// kube-apiserver encodes JSON. List items have no kind and apiVersion for
// built-in kinds, and have them for custom resources. Watch event objects
// have them. Each body is handed out in random small reads.
type source struct {
	mu      sync.Mutex
	rnd     *rand.Rand
	lists   map[string][]byte
	watches map[string][]byte
}

// newSource returns an empty source whose reads are sized from seed.
func newSource(seed int64) *source {
	return &source{rnd: rand.New(rand.NewSource(seed)), lists: map[string][]byte{}, watches: map[string][]byte{}}
}

// serve adds the traffic of a kind: typed says whether list items drop
// kind and apiVersion, as kube-apiserver's do for built-in kinds.
func (s *source) serve(path string, gvk schema.GroupVersionKind, typed bool, t rtTraffic) error {
	var list bytes.Buffer
	fmt.Fprintf(&list, `{"kind":%q,"apiVersion":%q,"metadata":{"resourceVersion":%q},"items":[`, gvk.Kind+"List", gvk.GroupVersion().String(), t.listRV)
	for i, o := range t.initial {
		item := o
		if typed {
			item = o.DeepCopyObject()
			item.GetObjectKind().SetGroupVersionKind(schema.GroupVersionKind{})
		}
		b, err := json.Marshal(item)
		if err != nil {
			return fmt.Errorf("list item %d: %w", i, err)
		}
		if i > 0 {
			list.WriteByte(',')
		}
		list.Write(b)
	}
	list.WriteString("]}")
	var stream bytes.Buffer
	for i, e := range t.events {
		b, err := json.Marshal(struct {
			Type   watch.EventType `json:"type"`
			Object runtime.Object  `json:"object"`
		}{e.typ, e.obj})
		if err != nil {
			return fmt.Errorf("event %d: %w", i, err)
		}
		stream.Write(b)
		stream.WriteByte('\n')
	}
	s.lists[path], s.watches[path] = list.Bytes(), stream.Bytes()
	return nil
}

// RoundTrip answers a LIST or a watch of a served collection; the watch
// ends after its last event, as at a timeout.
func (s *source) RoundTrip(req *http.Request) (*http.Response, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	bodies := s.lists
	if w := req.URL.Query().Get("watch"); w == "true" || w == "1" {
		bodies = s.watches
	}
	body, ok := bodies[req.URL.Path]
	code := http.StatusOK
	if !ok {
		code, body = http.StatusNotFound, []byte(`{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","reason":"NotFound","code":404}`)
	}
	return &http.Response{
		StatusCode: code, Status: fmt.Sprintf("%d %s", code, http.StatusText(code)),
		Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"application/json"}},
		Body:    &smallReads{data: body, rnd: rand.New(rand.NewSource(s.rnd.Int63()))},
		Request: req,
	}, nil
}

// smallReads hands out data a few bytes to a few hundred at a time, as a
// connection does. So frames reach the recorder cut anywhere.
type smallReads struct {
	data []byte
	rnd  *rand.Rand
}

// Read returns the next 1 to 512 bytes.
func (r *smallReads) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.data[:min(len(r.data), 1+r.rnd.Intn(512))])
	r.data = r.data[n:]
	return n, nil
}

// Close drops what is left.
func (r *smallReads) Close() error { r.data = nil; return nil }

// collectionPath is the all-namespaces REST path of gvr's collection.
func collectionPath(gvr schema.GroupVersionResource) string {
	if gvr.Group == "" {
		return "/api/" + gvr.Version + "/" + gvr.Resource
	}
	return strings.Join([]string{"/apis", gvr.Group, gvr.Version, gvr.Resource}, "/")
}

// withKind returns o with its kind and apiVersion set to gvk (typed
// clients drop them when they decode).
func withKind(o runtime.Object, gvk schema.GroupVersionKind) runtime.Object {
	o.GetObjectKind().SetGroupVersionKind(gvk)
	return o
}
