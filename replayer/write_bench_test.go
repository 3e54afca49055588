package replayer

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/internal/testutil"
)

// BenchmarkWrite measures one create of a configmap on a replay whose
// served state holds n objects (testutil.SynthHistory's configmaps): the
// cost of a write as the state grows. A write rebuilds the served history
// today, so it grows with n (docs/replayer.md, Writes).
func BenchmarkWrite(b *testing.B) {
	for _, n := range []int{500, 5000} {
		b.Run(fmt.Sprintf("objects=%d", n), func(b *testing.B) {
			h := testutil.SynthHistory(b, n, 0)
			l := h.Logs[0]
			s := New(h)
			ns := l.StateAt(0)[0].Namespace
			b.ReportAllocs()
			b.ResetTimer()
			for i := range b.N {
				body := fmt.Sprintf(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"w-%d"},"data":{"k":"v"}}`, i)
				r := httptest.NewRequest(http.MethodPost, "/api/v1/namespaces/"+ns+"/configmaps", strings.NewReader(body))
				r.Header.Set("Content-Type", "application/json")
				rec := httptest.NewRecorder()
				s.ServeHTTP(rec, r)
				if rec.Code != http.StatusCreated {
					b.Fatalf("create %d: got %d %s, want 201", i, rec.Code, rec.Body)
				}
			}
		})
	}
}
