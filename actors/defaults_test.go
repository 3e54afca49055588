package actors_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/actors"
)

// TestDefaultUnstructured checks that kube-apiserver's defaults are
// applied to a built-in kind as a replay holds it, and a custom resource
// is left alone.
func TestDefaultUnstructured(t *testing.T) {
	tests := []struct {
		name  string
		obj   map[string]any
		path  []string
		want  any // nil: absent
		found bool
	}{
		{name: "default - statefulset revisionHistoryLimit - pass",
			obj:  map[string]any{"apiVersion": "apps/v1", "kind": "StatefulSet", "metadata": map[string]any{"name": "web"}, "spec": map[string]any{}},
			path: []string{"spec", "revisionHistoryLimit"}, want: int64(10), found: true},
		{name: "default - pod template restartPolicy - pass",
			obj: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "api"},
				"spec": map[string]any{"template": map[string]any{"spec": map[string]any{"containers": []any{map[string]any{"name": "c", "image": "i"}}}}}},
			path: []string{"spec", "template", "spec", "restartPolicy"}, want: "Always", found: true},
		{name: "default - custom resource left alone - fail",
			obj:  map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w"}, "spec": map[string]any{}},
			path: []string{"spec", "revisionHistoryLimit"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			u := &unstructured.Unstructured{Object: tt.obj}
			if err := actors.DefaultUnstructured(u); err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			got, found, _ := unstructured.NestedFieldNoCopy(u.Object, tt.path...)
			if found != tt.found || (found && got != tt.want) {
				t.Errorf("got %v (found %v) at %v, want %v (found %v)", got, found, tt.path, tt.want, tt.found)
			}
			if u.GetKind() != tt.obj["kind"] {
				t.Errorf("got kind %q, want %v kept", u.GetKind(), tt.obj["kind"])
			}
		})
	}
}
