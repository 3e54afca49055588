package harness

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/history"
)

func TestOmitting(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		paths []string
		want  omission
	}{
		{name: "omitting - no path - nothing left out - pass", paths: nil, want: nil},
		{name: "omitting - one path - its last key a leaf - pass", paths: []string{"metadata.managedFields"},
			want: omission{"metadata": {"managedFields": nil}}},
		{name: "omitting - two paths under one key - one subtree - pass", paths: []string{"metadata.managedFields", "metadata.annotations"},
			want: omission{"metadata": {"managedFields": nil, "annotations": nil}}},
		{name: "omitting - a path below one left out whole - adds nothing - pass", paths: []string{"status", "status.conditions"},
			want: omission{"status": nil}},
		{name: "omitting - a path above one named before - left out whole - pass", paths: []string{"status.conditions", "status"},
			want: omission{"status": nil}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := omitting(tc.paths); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v, want %#v", got, tc.want)
			}
		})
	}
}

func TestSameStored(t *testing.T) {
	t.Parallel()
	w, _, _, err := history.ParseObject([]byte(`{"metadata":{"name":"a","namespace":"ns","resourceVersion":"7",` +
		`"managedFields":[{"manager":"m","operation":"Apply","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:spec":{}}}]},"spec":{"data":{"k":"v"}}}`))
	if err != nil {
		t.Fatalf("ParseObject: got error %v, want none", err)
	}
	stripped := omitting([]string{"metadata.managedFields"})
	typed := func(edit func(o *statusType)) *statusType {
		o := &statusType{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns", ResourceVersion: "7"}}
		o.Spec.Data = map[string]string{"k": "v"}
		if edit != nil {
			edit(o)
		}
		return o
	}
	tests := []struct {
		name string
		obj  any
		om   omission
		want bool
	}{
		{name: "same stored - typed, managedFields left out, stored without them - pass", obj: typed(nil), om: stripped, want: true},
		{name: "same stored - typed, managedFields not left out, stored without them - fail", obj: typed(nil), want: false},
		{name: "same stored - typed, managedFields left out, stored with them - fail", obj: typed(func(o *statusType) {
			o.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "m", Operation: "Apply", APIVersion: "v1", FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:spec":{}}`)}}}
		}), om: stripped, want: false},
		{name: "same stored - typed, managedFields left out, other spec value - fail", obj: typed(func(o *statusType) { o.Spec.Data["k"] = "w" }), om: stripped, want: false},
		{name: "same stored - raw JSON, managedFields left out, stored without them - pass",
			obj: json.RawMessage(`{"metadata":{"name":"a","namespace":"ns","resourceVersion":"7"},"spec":{"data":{"k":"v"}}}`), om: stripped, want: true},
		{name: "same stored - not JSON - fail", obj: json.RawMessage(`{`), om: stripped, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			raw, err := json.Marshal(tc.obj)
			if err != nil {
				raw = []byte(tc.obj.(json.RawMessage))
			}
			if got := sameStored(tc.obj, raw, w, tc.om); got != tc.want {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}

func TestStoreAgainstOmits(t *testing.T) {
	t.Parallel()
	raw := `{"metadata":{"name":"a","namespace":"ns","resourceVersion":"7","managedFields":[{"manager":"m","operation":"Update"}]},"data":{"k":"v"}}`
	w, _, _, err := history.ParseObject([]byte(raw))
	if err != nil {
		t.Fatalf("ParseObject: got error %v, want none", err)
	}
	want := map[string]*history.Object{"ns/a": w}
	stored := func(strip bool) *unstructured.Unstructured {
		u := &unstructured.Unstructured{}
		if err := u.UnmarshalJSON([]byte(`{"kind":"ConfigMap","apiVersion":"v1",` + raw[1:])); err != nil {
			t.Fatalf("UnmarshalJSON: got error %v, want none", err)
		}
		if strip {
			unstructured.RemoveNestedField(u.Object, "metadata", "managedFields")
		}
		return u
	}
	tests := []struct {
		name     string
		obj      any
		omits    []string
		wantSame bool   // stored as want's object itself
		wantBad  string // "" for no bad item
	}{
		{name: "store against - managedFields left out, stored without them - the truth's object - pass",
			obj: stored(true), omits: []string{"metadata.managedFields"}, wantSame: true},
		{name: "store against - managedFields left out, stored with them - described as bad - fail",
			obj: stored(false), omits: []string{"metadata.managedFields"}, wantBad: "item 0: ns/a holds metadata.managedFields, which its store leaves out (Target.StoreOmits)"},
		{name: "store against - nothing left out, stored whole - the truth's object - pass", obj: stored(false), wantSame: true},
		{name: "store against - nothing left out, stored without managedFields - its own object - fail", obj: stored(true)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := NewProbe(time.Now())
			p.SetStore(func() []any { return []any{tc.obj} })
			store, bad := p.storeAgainst(want, omitting(tc.omits))
			if got := store["ns/a"] == w; got != tc.wantSame {
				t.Errorf("stored as the truth's object: got %v, want %v", got, tc.wantSame)
			}
			if got := strings.Join(bad, "; "); got != tc.wantBad {
				t.Errorf("bad: got %q, want %q", got, tc.wantBad)
			}
		})
	}
}
