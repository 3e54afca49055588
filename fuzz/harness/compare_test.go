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
	raw := []byte(`{"metadata":{"name":"a","namespace":"ns","resourceVersion":"7","uid":"u1","labels":{"app":"x"},"creationTimestamp":"2024-01-02T03:04:05Z",` +
		`"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2024-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{".":{},"f:k":{}}}}]},` +
		`"data":{"k":"v"},"n":3,"f":1.5,"l":[true,null,"x"]}`)
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
	stripped := omitting([]string{"metadata.managedFields"})
	tests := []struct {
		name string
		obj  any
		om   omission // fields left out (Target.StoreOmits)
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
		{name: "same as wanted - managedFields left out, stored without them - pass",
			obj: stored(func(m map[string]any) { delete(m["metadata"].(map[string]any), "managedFields") }), om: stripped, want: true},
		{name: "same as wanted - managedFields left out, stored with them - fail", obj: stored(nil), om: stripped, want: false},
		{name: "same as wanted - managedFields not left out, stored without them - fail",
			obj: stored(func(m map[string]any) { delete(m["metadata"].(map[string]any), "managedFields") }), want: false},
		{name: "same as wanted - managedFields left out, labels stripped too - fail", obj: stored(func(m map[string]any) {
			delete(m["metadata"].(map[string]any), "managedFields")
			delete(m["metadata"].(map[string]any), "labels")
		}), om: stripped, want: false},
		{name: "same as wanted - managedFields left out, other data value - fail", obj: stored(func(m map[string]any) {
			delete(m["metadata"].(map[string]any), "managedFields")
			m["data"].(map[string]any)["k"] = "w"
		}), om: stripped, want: false},
		{name: "same as wanted - a field left out the truth lacks, stored without it - pass",
			obj: stored(nil), om: omitting([]string{"metadata.ownerReferences"}), want: true},
		{name: "same as wanted - metadata only, managedFields left out, stored without them - pass",
			obj: partial(t, raw, func(m *metav1.ObjectMeta) { m.ManagedFields = nil }), om: stripped, want: true},
		{name: "same as wanted - metadata only, managedFields left out, stored with them - fail", obj: partial(t, raw, nil), om: stripped, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := sameAsWanted(tc.obj, want, tc.om)
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

// statusType is a typed object as kubebuilder scaffolds one: its Status
// struct encodes as "status":{} when empty.
type statusType struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              struct {
		Data map[string]string `json:"data,omitempty"`
	} `json:"spec,omitempty"`
	Status struct {
		Ready bool `json:"ready,omitempty"`
	} `json:"status,omitempty"`
}

func TestSameTyped(t *testing.T) {
	t.Parallel()
	w, _, _, err := history.ParseObject([]byte(`{"metadata":{"name":"a","namespace":"ns","resourceVersion":"7"},"spec":{"data":{"k":"v"}},"unknown":1}`))
	if err != nil {
		t.Fatalf("ParseObject: got error %v, want none", err)
	}
	typed := func(edit func(o *statusType)) *statusType {
		o := &statusType{TypeMeta: metav1.TypeMeta{Kind: "Widget", APIVersion: "example.lwreplay.dev/v1"},
			ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", ResourceVersion: "7"}}
		o.Spec.Data = map[string]string{"k": "v"}
		if edit != nil {
			edit(o)
		}
		return o
	}
	tests := []struct {
		name string
		obj  any
		want bool
	}{
		{name: "same typed - empty status struct, unknown field dropped, kind aside - pass", obj: typed(nil), want: true},
		{name: "same typed - other spec value - fail", obj: typed(func(o *statusType) { o.Spec.Data["k"] = "w" }), want: false},
		{name: "same typed - a status the truth lacks - fail", obj: typed(func(o *statusType) { o.Status.Ready = true }), want: false},
		{name: "same typed - unstructured - fail", obj: &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "a"}}}, want: false},
		{name: "same typed - not a struct pointer - fail", obj: json.RawMessage(`{}`), want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(tc.obj)
			if err != nil {
				t.Fatal(err)
			}
			if o, _, _, err := history.ParseObject(raw); err == nil {
				raw = o.Raw // kind and apiVersion stripped, as level.ObjectOf does
			}
			if got := sameTyped(tc.obj, raw, w); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
