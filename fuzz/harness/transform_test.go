package harness

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/history"
)

// TestSameTransformed compares stored objects with a truth's object passed
// through a transform that strips managedFields (as controller-runtime's
// TransformStripManagedFields). It does so in each form a
// controller-runtime cache stores: typed, unstructured, metadata only.
func TestSameTransformed(t *testing.T) {
	t.Parallel()
	w, _, _, err := history.ParseObject([]byte(`{"metadata":{"name":"a","namespace":"ns","resourceVersion":"7",` +
		`"managedFields":[{"manager":"m","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{}}}]},"data":{"k":"v"}}`))
	if err != nil {
		t.Fatalf("ParseObject: got error %v, want none", err)
	}
	strip := func(in any) (any, error) {
		m, err := meta.Accessor(in)
		if err != nil {
			return nil, err
		}
		m.SetManagedFields(nil)
		return in, nil
	}
	failing := func(any) (any, error) { return nil, errors.New("no") }
	typed := func(edit func(*corev1.ConfigMap)) *corev1.ConfigMap {
		o := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", ResourceVersion: "7"}, Data: map[string]string{"k": "v"}}
		if edit != nil {
			edit(o)
		}
		return o
	}
	withManagedFields := func(o *corev1.ConfigMap) {
		o.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Operation: "Apply", APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{}}`)}}}
	}
	unstr := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{"name": "a", "namespace": "ns", "resourceVersion": "7"}, "data": map[string]any{"k": "v"}}}
	partial := &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", ResourceVersion: "7"}}
	tests := []struct {
		name string
		obj  any
		fn   func(any) (any, error)
		want bool
	}{
		{name: "same transformed - typed, stripped as the transform strips - pass", obj: typed(nil), fn: strip, want: true},
		{name: "same transformed - typed, no transform - fail", obj: typed(nil), want: false},
		{name: "same transformed - typed, the transform did not run on it - fail", obj: typed(withManagedFields), fn: strip, want: false},
		{name: "same transformed - typed, other data - fail", obj: typed(func(o *corev1.ConfigMap) { o.Data["k"] = "w" }), fn: strip, want: false},
		{name: "same transformed - typed, the transform fails - fail", obj: typed(nil), fn: failing, want: false},
		{name: "same transformed - unstructured, stripped - pass", obj: unstr, fn: strip, want: true},
		{name: "same transformed - metadata only, stripped - pass", obj: partial, fn: strip, want: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o, err := level.ObjectOf(tc.obj)
			if err != nil {
				t.Fatalf("ObjectOf: got error %v, want none", err)
			}
			if got := sameTransformed(tc.obj, o.Raw, w, tc.fn); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
