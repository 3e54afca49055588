package oracle

import (
	"hash/fnv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/fuzz/observe"
)

// TestViewOfSum checks that a store view digests each object as hash/fnv's
// FNV-1a of key@resourceVersion, typed or unstructured alike. The served
// states are compared with that digest.
func TestViewOfSum(t *testing.T) {
	fnvOf := func(s string) uint64 {
		h := fnv.New64a()
		h.Write([]byte(s))
		return h.Sum64()
	}
	unstr := func(ns, name, rv string) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{}}
		u.SetNamespace(ns)
		u.SetName(name)
		u.SetResourceVersion(rv)
		return u
	}
	for _, c := range []struct {
		name  string
		items []any
		want  uint64
	}{
		{"view - namespaced typed object - pass", []any{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a", ResourceVersion: "12"}}}, fnvOf("ns/a@12")},
		{"view - cluster-scoped typed object - pass", []any{&rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "r", ResourceVersion: "7"}}}, fnvOf("r@7")},
		{"view - namespaced unstructured object - pass", []any{unstr("ns", "a", "12")}, fnvOf("ns/a@12")},
		{"view - cluster-scoped unstructured object - pass", []any{unstr("", "r", "7")}, fnvOf("r@7")},
		{"view - unstructured object without metadata - pass", []any{&unstructured.Unstructured{Object: map[string]any{}}}, fnvOf("@")},
		{"view - two objects - pass", []any{unstr("ns", "a", "12"), unstr("", "r", "7")}, fnvOf("ns/a@12") + fnvOf("r@7")},
	} {
		t.Run(c.name, func(t *testing.T) {
			keys, sum, ok := ViewOf(c.items)
			if !ok || keys != len(c.items) || sum != c.want {
				t.Errorf("ViewOf: got keys %d, sum %x, ok %v; want keys %d, sum %x, ok true", keys, sum, ok, len(c.items), c.want)
			}
		})
	}
	if got, want := observe.EntrySum("ns/a", "12"), fnvOf("ns/a@12"); got != want {
		t.Errorf("observe.EntrySum(ns/a, 12): got %x, want %x", got, want)
	}
	if _, _, ok := ViewOf([]any{"not an object"}); ok {
		t.Errorf("ViewOf of a string: got ok, want not ok")
	}
}
