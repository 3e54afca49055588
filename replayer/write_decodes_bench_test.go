package replayer

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

// writeKinds are the writes BenchmarkWriteKinds makes of a listed
// configmap (create: of a new one), each as a client sends it. Each body
// is made of the listed object's JSON without decoding it.
var writeKinds = []struct {
	name, method, contentType, query string
	body                             func(i int, o *history.Object) string
	code                             int
}{
	{name: "create", method: http.MethodPost, contentType: "application/json", code: http.StatusCreated,
		body: func(i int, o *history.Object) string {
			return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w-%d","namespace":%q},"data":{"k":"v"}}`, i, o.Namespace)
		}},
	{name: "update", method: http.MethodPut, contentType: "application/json", code: http.StatusOK,
		body: func(i int, o *history.Object) string {
			// the listed object as a client's GET gave it, one key added: as
			// client-go's Update sends it, at the resourceVersion read
			return strings.Replace(string(o.WithKind("ConfigMap", "v1")), `"data":{`, fmt.Sprintf(`"data":{"written":"%d",`, i), 1)
		}},
	{name: "merge-patch", method: http.MethodPatch, contentType: "application/merge-patch+json", code: http.StatusOK,
		body: func(i int, _ *history.Object) string { return fmt.Sprintf(`{"data":{"written":"%d"}}`, i) }},
	{name: "strategic-merge-patch", method: http.MethodPatch, contentType: "application/strategic-merge-patch+json", code: http.StatusOK,
		body: func(i int, _ *history.Object) string { return fmt.Sprintf(`{"data":{"written":"%d"}}`, i) }},
	{name: "apply", method: http.MethodPatch, contentType: "application/apply-patch+yaml", query: "?fieldManager=bench&force=true", code: http.StatusOK,
		body: func(i int, o *history.Object) string {
			return fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":%q,"namespace":%q},"data":{"written":"%d"}}`, o.Name, o.Namespace, i)
		}},
}

// BenchmarkWriteKinds measures each kind of write of configmaps, each
// object written once (b.N ≤ 2,000). Its requests are made without
// decoding JSON, so that bench/decodes.sh can count the JSON a write
// parses from a coverage profile: the setup parses as much whatever b.N.
// It reports the listed objects' mean JSON size (object-B).
func BenchmarkWriteKinds(b *testing.B) {
	const objects = 2000
	h := configmapHistory(b, objects, 0)
	l := h.Logs[0]
	size := 0
	for _, o := range l.Initial {
		size += len(o.Raw)
	}
	for _, wk := range writeKinds {
		b.Run(wk.name, func(b *testing.B) {
			if b.N > objects {
				b.Skipf("b.N %d: want at most %d, each object written once", b.N, objects)
			}
			s := New(h)
			reqs := make([]*http.Request, b.N)
			for i := range reqs {
				o := l.Initial[i]
				path := "/api/v1/namespaces/" + o.Namespace + "/configmaps"
				if wk.method != http.MethodPost {
					path += "/" + o.Name
				}
				reqs[i] = httptest.NewRequest(wk.method, path+wk.query, strings.NewReader(wk.body(i, o)))
				reqs[i].Header.Set("Content-Type", wk.contentType)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, reqs[i])
				if rec.Code != wk.code {
					b.Fatalf("%s %d: got %d %s, want %d", wk.name, i, rec.Code, rec.Body, wk.code)
				}
			}
			b.StopTimer()
			b.ReportMetric(float64(size)/objects, "object-B")
		})
	}
}
