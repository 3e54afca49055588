package history

import (
	"net/url"
	"testing"
)

// TestParseRequestNamespaceSubresource checks that a namespace's status
// and finalize subresources parse as the namespaces resource's, and a
// namespaced collection as before.
func TestParseRequestNamespaceSubresource(t *testing.T) {
	tests := []struct {
		name, path                   string
		resource, namespace, objName string
		sub                          string
	}{
		{"parse - namespace finalize - pass", "/api/v1/namespaces/ns/finalize", "namespaces", "", "ns", "finalize"},
		{"parse - namespace status - pass", "/api/v1/namespaces/ns/status", "namespaces", "", "ns", "status"},
		{"parse - namespaced collection - pass", "/api/v1/namespaces/ns/pods", "pods", "ns", "", ""},
		{"parse - namespaced status - pass", "/api/v1/namespaces/ns/pods/p/status", "pods", "ns", "p", "status"},
		{"parse - group collection named finalize - pass", "/apis/example.com/v1/namespaces/ns/finalize", "finalize", "ns", "", ""},
		{"parse - a path of more than 8 segments - pass", "/apis/example.com/v1/namespaces/ns/widgets/w/a/b/c/d", "widgets", "ns", "w", "a/b/c/d"},
		{"parse - slashes around and doubled - pass", "//api/v1/namespaces/ns/pods//", "pods", "ns", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q, ok, err := ParseRequestInfo(&url.URL{Path: tt.path})
			if !ok || err != nil {
				t.Fatalf("got ok %v err %v, want ok and no error", ok, err)
			}
			got := [4]string{q.Resource.Resource, q.Namespace, q.Name, q.Subresource}
			if want := [4]string{tt.resource, tt.namespace, tt.objName, tt.sub}; got != want {
				t.Errorf("got resource, namespace, name, subresource %q, want %q", got, want)
			}
		})
	}
}
