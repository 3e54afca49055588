package replayer

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestGet(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		before     string // a request made first
		target     string
		code       int
		kind       string
		apiVersion string
		objName    string
		msg        string
	}{
		{name: "get - namespaced object - pass", target: "/api/v1/namespaces/a/configmaps/one", code: 200, kind: "ConfigMap", apiVersion: "v1", objName: "one"},
		{name: "get - status subresource - pass", target: "/api/v1/namespaces/a/configmaps/one/status", code: 200, kind: "ConfigMap", apiVersion: "v1", objName: "one"},
		{name: "get - grouped resource - pass", target: "/apis/apps/v1/namespaces/a/deployments/web", code: 200, kind: "Deployment", apiVersion: "apps/v1", objName: "web"},
		{name: "get - cluster-scoped object - pass", target: "/api/v1/namespaces/b", code: 200, kind: "Namespace", apiVersion: "v1", objName: "b"},
		{name: "get - object at the head - pass", target: "/api/v1/namespaces/b/configmaps/two", code: 200, kind: "ConfigMap", apiVersion: "v1", objName: "two"},
		{name: "get - object deleted before the head - fail", before: "/api/v1/configmaps?resourceVersion=1010&resourceVersionMatch=NotOlderThan",
			target: "/api/v1/namespaces/b/configmaps/two", code: 404, msg: `configmaps "two" not found`},
		{name: "get - resourceVersion after the deletion - fail", target: "/api/v1/namespaces/b/configmaps/two?resourceVersion=1010", code: 404, msg: `configmaps "two" not found`},
		{name: "get - last object of a namespace - pass", target: "/api/v1/namespaces/a/configmaps/two", code: 200, kind: "ConfigMap", apiVersion: "v1", objName: "two"},
		{name: "get - name of another namespace's object - fail", target: "/api/v1/namespaces/b/configmaps/three", code: 404, msg: `configmaps "three" not found`},
		{name: "get - unknown namespace - fail", target: "/api/v1/namespaces/c/configmaps/one", code: 404, msg: `configmaps "one" not found`},
		{name: "get - unknown name - fail", target: "/api/v1/namespaces/a/configmaps/nope", code: 404, msg: `configmaps "nope" not found`},
		{name: "get - namespaced resource without namespace - fail", target: "/api/v1/configmaps/one", code: 404},
		{name: "get - unsupported subresource - fail", target: "/api/v1/namespaces/a/configmaps/one/scale", code: 404},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestServer(t)
			if tt.before != "" {
				if rec := get(s, tt.before, "application/json"); rec.Code != 200 {
					t.Fatalf("before: got code %d, want 200: %s", rec.Code, rec.Body)
				}
			}
			rec := get(s, tt.target, "application/json")
			if rec.Code != tt.code {
				t.Fatalf("got code %d, want %d: %s", rec.Code, tt.code, rec.Body)
			}
			var obj struct {
				Kind       string            `json:"kind"`
				APIVersion string            `json:"apiVersion"`
				Metadata   metav1.ObjectMeta `json:"metadata"`
				Message    string            `json:"message"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &obj); err != nil {
				t.Fatalf("answer %q: %v", rec.Body, err)
			}
			if tt.code != 200 {
				if obj.Kind != "Status" || !strings.Contains(obj.Message, tt.msg) {
					t.Errorf("got kind %q message %q, want a Status containing %q", obj.Kind, obj.Message, tt.msg)
				}
				return
			}
			if obj.Kind != tt.kind || obj.APIVersion != tt.apiVersion {
				t.Errorf("got %s %s, want %s %s", obj.APIVersion, obj.Kind, tt.apiVersion, tt.kind)
			}
			if obj.Metadata.Name != tt.objName {
				t.Errorf("got name %q, want %q", obj.Metadata.Name, tt.objName)
			}
		})
	}
}
