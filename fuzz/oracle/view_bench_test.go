package oracle

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// BenchmarkViewOf is the cost of one store view of 50 objects, typed and
// unstructured. That is the reference cassette's store. A handler's
// Probe.View takes such a view after each notification.
func BenchmarkViewOf(b *testing.B) {
	typed := make([]any, 50)
	untyped := make([]any, 50)
	for i := range typed {
		om := metav1.ObjectMeta{Namespace: "default", Name: fmt.Sprintf("cm-%d", i), ResourceVersion: fmt.Sprint(1000 + i)}
		typed[i] = &corev1.ConfigMap{ObjectMeta: om}
		u := &unstructured.Unstructured{}
		u.SetNamespace(om.Namespace)
		u.SetName(om.Name)
		u.SetResourceVersion(om.ResourceVersion)
		untyped[i] = u
	}
	for _, c := range []struct {
		name  string
		items []any
	}{{"typed", typed}, {"unstructured", untyped}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, _, ok := ViewOf(c.items); !ok {
					b.Fatal("ViewOf: got not ok, want a digest")
				}
			}
		})
	}
}
