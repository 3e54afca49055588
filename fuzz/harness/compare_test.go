package harness

import (
	"encoding/json"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/history"
)

func TestSameAsWanted(t *testing.T) {
	t.Parallel()
	raw := []byte(`{"metadata":{"name":"a","namespace":"ns","resourceVersion":"7","uid":"u1","labels":{"app":"x"},"creationTimestamp":"2024-01-02T03:04:05Z"},"data":{"k":"v"},"n":3,"f":1.5,"l":[true,null,"x"]}`)
	w, _, _, err := history.ParseObject(raw)
	if err != nil {
		t.Fatalf("ParseObject: got error %v, want none", err)
	}
	want := map[string]*history.Object{"ns/a": w}
	stored := func(edit func(m map[string]any)) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON(append([]byte(`{"kind":"ConfigMap","apiVersion":"v1",`), raw[1:]...)); err != nil {
			t.Fatalf("UnmarshalJSON: got error %v, want none", err)
		}
		if edit != nil {
			edit(u.Object)
		}
		return u
	}
	tests := []struct {
		name string
		obj  any
		want bool
	}{
		{name: "same as wanted - equal, kind and apiVersion aside, int64 against float64 - pass", obj: stored(nil), want: true},
		{name: "same as wanted - other data value - fail", obj: stored(func(m map[string]any) { m["data"].(map[string]any)["k"] = "w" }), want: false},
		{name: "same as wanted - extra field - fail", obj: stored(func(m map[string]any) { m["extra"] = "x" }), want: false},
		{name: "same as wanted - missing field - fail", obj: stored(func(m map[string]any) { delete(m, "f") }), want: false},
		{name: "same as wanted - list item differs - fail", obj: stored(func(m map[string]any) { m["l"].([]any)[1] = false }), want: false},
		{name: "same as wanted - number differs - fail", obj: stored(func(m map[string]any) { m["n"] = int64(4) }), want: false},
		{name: "same as wanted - other resourceVersion - fail", obj: stored(func(m map[string]any) {
			m["metadata"].(map[string]any)["resourceVersion"] = "8"
		}), want: false},
		{name: "same as wanted - not unstructured - fail", obj: json.RawMessage(raw), want: false},
		{name: "same as wanted - metadata only, equal metadata, data aside - pass", obj: partial(t, raw, nil), want: true},
		{name: "same as wanted - metadata only, other label - fail", obj: partial(t, raw, func(m *metav1.ObjectMeta) { m.Labels["app"] = "y" }), want: false},
		{name: "same as wanted - metadata only, extra annotation - fail", obj: partial(t, raw, func(m *metav1.ObjectMeta) { m.Annotations = map[string]string{"a": "b"} }), want: false},
		{name: "same as wanted - metadata only, other resourceVersion - fail", obj: partial(t, raw, func(m *metav1.ObjectMeta) { m.ResourceVersion = "8" }), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := sameAsWanted(tc.obj, want)
			if ok != tc.want {
				t.Fatalf("same: got %v, want %v", ok, tc.want)
			}
			if ok && got != w {
				t.Errorf("object: got %p, want the wanted one %p", got, w)
			}
		})
	}
}

// partial returns the PartialObjectMetadata a metadata client decodes of
// raw's metadata, edited by edit.
func partial(t *testing.T, raw []byte, edit func(*metav1.ObjectMeta)) *metav1.PartialObjectMetadata {
	t.Helper()
	var obj struct {
		Metadata metav1.ObjectMeta `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &obj); err != nil {
		t.Fatalf("Unmarshal: got error %v, want none", err)
	}
	p := &metav1.PartialObjectMetadata{ObjectMeta: obj.Metadata}
	if edit != nil {
		edit(&p.ObjectMeta)
	}
	return p
}
