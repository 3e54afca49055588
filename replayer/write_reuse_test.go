package replayer

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

// TestWriteReuse checks that a replay WithWriteReuse answers as one
// without: the same writes on two replays of one history, the second
// reusing the first's field-manager answers an hour of clock later, each
// answer byte for byte that of a replay without reuse at the same time.
func TestWriteReuse(t *testing.T) {
	h := configmapHistory(&testing.B{}, 3, 0)
	o := h.Logs[0].Initial[0]
	path := "/api/v1/namespaces/" + o.Namespace + "/configmaps"
	writes := []struct{ method, path, contentType, body string }{
		{http.MethodPut, path + "/" + o.Name, "application/json",
			strings.Replace(string(o.WithKind("ConfigMap", "v1")), `"data":{`, `"data":{"written":"1",`, 1)},
		{http.MethodPatch, path + "/" + o.Name + "?fieldManager=patcher", "application/merge-patch+json", `{"data":{"patched":"1"}}`},
		{http.MethodPost, path + "?fieldManager=creator", "application/json", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"made"},"data":{"k":"v"}}`},
	}
	serve := func(s *Server) []string {
		var out []string
		for _, w := range writes {
			req := httptest.NewRequest(w.method, w.path, strings.NewReader(w.body))
			req.Header.Set("Content-Type", w.contentType)
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, req)
			out = append(out, rec.Result().Status+" "+rec.Body.String())
		}
		return out
	}
	run := func(after time.Duration, opts ...Option) (got []string) {
		synctest.Test(t, func(t *testing.T) {
			time.Sleep(after) // the virtual clock the writes are stamped with
			got = serve(New(h, opts...))
		})
		return got
	}
	run(0, WithWriteReuse()) // holds the answers
	reused := run(time.Hour, WithWriteReuse())
	plain := run(time.Hour)
	for i := range writes {
		if !bytes.Equal([]byte(reused[i]), []byte(plain[i])) {
			t.Errorf("%s %s: got %s with reuse, want %s as without", writes[i].method, writes[i].path, reused[i], plain[i])
		}
		if !strings.HasPrefix(plain[i], "20") {
			t.Errorf("%s %s: got %s, want it written", writes[i].method, writes[i].path, plain[i])
		}
	}
}
