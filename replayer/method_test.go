package replayer

import (
	"net/http"
	"net/http/httptest"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestMethodNotAllowed checks the 405 a read-only replay (WithReadOnly)
// answers each method but GET with. It is kube-apiserver 1.37's Status
// (seen: "the server does not allow this method on the requested
// resource", reason MethodNotAllowed), with an Allow header naming GET.
func TestMethodNotAllowed(t *testing.T) {
	t.Parallel()
	s := newTestServer(t, WithReadOnly())
	tests := []struct {
		name, method, target string
	}{
		{"collection - POST - pass", http.MethodPost, "/api/v1/namespaces/a/configmaps"},
		{"all namespaces - DELETE - pass", http.MethodDelete, "/api/v1/configmaps"},
		{"object - PUT - pass", http.MethodPut, "/api/v1/namespaces/a/configmaps/one"},
		{"object - PATCH - pass", http.MethodPatch, "/api/v1/namespaces/a/configmaps/one"},
		{"group collection - POST - pass", http.MethodPost, "/apis/apps/v1/namespaces/a/deployments"},
		{"discovery - OPTIONS - pass", http.MethodOptions, "/api/v1"},
		{"version - HEAD - pass", http.MethodHead, "/version"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := httptest.NewRecorder()
			s.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.target, nil))
			if rec.Code != http.StatusMethodNotAllowed {
				t.Fatalf("%s %s: got %d, want 405", tt.method, tt.target, rec.Code)
			}
			if got := rec.Header().Values("Allow"); len(got) != 1 || got[0] != "GET" {
				t.Errorf("%s %s: got Allow %q, want [GET]", tt.method, tt.target, got)
			}
			a := decode(t, rec)
			if a.Code != 405 || a.Reason != metav1.StatusReasonMethodNotAllowed || a.Message != "the server does not allow this method on the requested resource" {
				t.Errorf("%s %s: got Status code %d reason %q message %q, want kube-apiserver's 405 Status", tt.method, tt.target, a.Code, a.Reason, a.Message)
			}
		})
	}
}
