package history_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

// TestObjectOf holds ObjectOf equal to ParseObject of the object's
// encoding: the write path makes its events with ObjectOf, the recorded
// ones are parsed.
func TestObjectOf(t *testing.T) {
	tests := []struct {
		name    string
		obj     string
		wantErr bool
	}{
		{"configmap - kind, labels, annotations - pass",
			`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns","uid":"u1","resourceVersion":"7","labels":{"x":"1"},"annotations":{"y":"2"}},"data":{"z":"1","a":"2"}}`, false},
		{"node - cluster-scoped, no kind - pass", `{"metadata":{"name":"n1"},"spec":{}}`, false},
		{"empty labels - kept empty, not null - pass", `{"metadata":{"name":"a","labels":{}},"data":null}`, false},
		{"null labels - pass", `{"kind":"Pod","metadata":{"name":"a","labels":null}}`, false},
		{"no name - fail", `{"metadata":{"namespace":"ns"}}`, true},
		{"no metadata - fail", `{"kind":"ConfigMap"}`, true},
		{"a number label - fail", `{"metadata":{"name":"a","labels":{"x":1}}}`, true},
		{"metadata a string - fail", `{"metadata":"a"}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m map[string]any
			if err := json.Unmarshal([]byte(tt.obj), &m); err != nil {
				t.Fatalf("test object: %v", err)
			}
			got, kind, apiVersion, err := history.ObjectOf(m)
			if (err != nil) != tt.wantErr {
				t.Fatalf("ObjectOf: got error %v, want error %v", err, tt.wantErr)
			}
			raw, _ := json.Marshal(m)
			want, wantKind, wantAPIVersion, werr := history.ParseObject(raw)
			if (werr != nil) != tt.wantErr {
				t.Fatalf("ParseObject: got error %v, want error %v", werr, tt.wantErr)
			}
			if tt.wantErr {
				return
			}
			if kind != wantKind || apiVersion != wantAPIVersion {
				t.Errorf("kind, apiVersion: got %q %q, want %q %q", kind, apiVersion, wantKind, wantAPIVersion)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("object: got %+v (raw %s), want %+v (raw %s)", got, got.Raw, want, want.Raw)
			}
		})
	}
}
