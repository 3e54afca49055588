package writes

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/lwreplay/lwreplay/history"
)

// fuzzMethods and fuzzTypes are what a FuzzWrite input picks from.
var (
	fuzzMethods = []string{http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}
	fuzzTypes   = []string{"application/json", "application/yaml", "application/vnd.kubernetes.protobuf",
		"application/merge-patch+json", "application/strategic-merge-patch+json", "application/json-patch+json",
		"application/apply-patch+yaml", "text/plain"}
	fuzzKinds = []Kind{configmaps, deployments, widgets}
)

// FuzzWrite sends any body, media type and query to any write verb of a
// built-in and a custom kind. A write never panics. Every refusal is a
// Status a client can read (an apierrors.APIStatus with a 4xx or 5xx
// code), never a bare error.
func FuzzWrite(f *testing.F) {
	f.Add(uint8(0), uint8(0), uint8(0), "c", "fieldManager=m", []byte(`{"metadata":{"name":"c"},"data":{"k":"v"}}`))
	f.Add(uint8(1), uint8(0), uint8(0), "c", "", []byte(`{"metadata":{"name":"c","resourceVersion":"1"}}`))
	f.Add(uint8(2), uint8(3), uint8(1), "d", "", []byte(`{"spec":{"replicas":3}}`))
	f.Add(uint8(2), uint8(4), uint8(1), "d", "", []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"x","$patch":"delete"}]}}}}`))
	f.Add(uint8(2), uint8(5), uint8(2), "w", "", []byte(`[{"op":"replace","path":"/spec/x","value":2}]`))
	f.Add(uint8(2), uint8(6), uint8(2), "w", "fieldManager=m&force=true", []byte("apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: w\nspec:\n  x: 3\n"))
	f.Add(uint8(3), uint8(0), uint8(0), "c", "propagationPolicy=Orphan", []byte(`{"preconditions":{"uid":"x"}}`))
	f.Add(uint8(0), uint8(2), uint8(0), "", "dryRun=All", []byte{0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0f})
	f.Fuzz(func(t *testing.T, method, media, kind uint8, name, query string, body []byte) {
		k := fuzzKinds[int(kind)%len(fuzzKinds)]
		m := fuzzMethods[int(method)%len(fuzzMethods)]
		st := mapState{
			"ns/c": stored(t, configmaps, "5", "uid-c", `{"metadata":{"name":"c","namespace":"ns"},"data":{"k":"v"}}`),
			"ns/d": stored(t, deployments, "6", "uid-d", `{"metadata":{"name":"d","namespace":"ns","generation":1},"spec":{"replicas":1}}`),
			"ns/w": stored(t, widgets, "7", "uid-w", `{"metadata":{"name":"w","namespace":"ns","generation":1,"finalizers":["f"]},"spec":{"x":1}}`),
		}
		q := history.RequestInfo{Resource: k.Resource, Namespace: "ns", Name: name}
		if m == http.MethodPost {
			q.Name = ""
		}
		r := httptest.NewRequest(m, "/x", bytes.NewReader(body))
		r.URL.RawQuery = query
		r.Header.Set("Content-Type", fuzzTypes[int(media)%len(fuzzTypes)])
		req, err := Parse(r, q, k)
		if err == nil {
			_, err = Do(st, testEnv("abcde", "fghjk"), req)
		}
		if err == nil || errors.Is(err, ErrAborted) { // ErrAborted: as kube-apiserver, no answer
			return
		}
		var status apierrors.APIStatus
		if !errors.As(err, &status) {
			t.Fatalf("%s %s %q: got a bare error %v (%T), want a Status", m, k.Resource.Resource, body, err, err)
		}
		if c := status.Status().Code; c < 400 || c > 599 {
			t.Fatalf("%s %s %q: got Status code %d (%s), want 4xx or 5xx", m, k.Resource.Resource, body, c, status.Status().Message)
		}
	})
}
