package builtin_test

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/lwreplay/lwreplay/internal/builtin"
)

// widget is a custom resource's Go type, as an operator registers it.
type widget struct{ runtime.Unknown }

// TestScheme registers a custom kind into client-go's scheme.Scheme, as an
// operator's main does, and checks that Scheme still knows the built-in
// kinds alone.
func TestScheme(t *testing.T) {
	custom := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	scheme.Scheme.AddKnownTypeWithName(custom, &widget{})
	for _, tc := range []struct {
		name string
		gvk  schema.GroupVersionKind
		want bool
	}{
		{"scheme - a ConfigMap - known - pass", schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, true},
		{"scheme - a Deployment - known - pass", schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, true},
		{"scheme - a custom kind in client-go's scheme - unknown - pass", custom, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := builtin.Scheme.Recognizes(tc.gvk); got != tc.want {
				t.Errorf("recognizes %v: got %v, want %v", tc.gvk, got, tc.want)
			}
		})
	}
	if !scheme.Scheme.Recognizes(custom) {
		t.Errorf("client-go's scheme: got the custom kind unknown, want it registered (the test's premise)")
	}
}
