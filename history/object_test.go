package history_test

import (
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

func TestParseObject(t *testing.T) {
	tests := []struct {
		name     string
		raw      string
		wantKey  string
		wantRaw  string
		wantKind string
		wantErr  bool
	}{
		{"list item - kept as is - pass",
			` {"metadata":{"name":"a","namespace":"ns","resourceVersion":"5"},"data":{"z":"1","a":"2"}} `, "ns/a",
			`{"metadata":{"name":"a","namespace":"ns","resourceVersion":"5"},"data":{"z":"1","a":"2"}}`, "", false},
		{"event object - kind stripped, order kept - pass",
			`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"a","namespace":"ns"},"data":{"z":"1"},"binaryData":null}`, "ns/a",
			`{"metadata":{"name":"a","namespace":"ns"},"data":{"z":"1"},"binaryData":null}`, "ConfigMap", false},
		{"event object - kind in the middle, pretty-printed - pass",
			"{\n  \"metadata\": {\"name\": \"n1\"},\n  \"kind\": \"Node\",\n  \"spec\": {}\n}", "n1",
			"{\"metadata\": {\"name\": \"n1\"},\"spec\": {}}", "Node", false},
		{"event object - only kind and metadata - pass",
			`{"kind":"Node","metadata":{"name":"n1"}}`, "n1", `{"metadata":{"name":"n1"}}`, "Node", false},
		{"no name - fail", `{"metadata":{"namespace":"ns"}}`, "", "", "", true},
		{"not an object - fail", `["a"]`, "", "", "", true},
		{"null - fail", `null`, "", "", "", true},
		{"empty - fail", ``, "", "", "", true},
		{"trailing garbage - fail", `{"metadata":{"name":"a"}} x`, "", "", "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, kind, _, err := history.ParseObject([]byte(tt.raw))
			if (err != nil) != tt.wantErr {
				t.Fatalf("ParseObject: got error %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if o.Key() != tt.wantKey || string(o.Raw) != tt.wantRaw || kind != tt.wantKind {
				t.Errorf("ParseObject: got %s %s %s, want %s %s %s", o.Key(), o.Raw, kind, tt.wantKey, tt.wantRaw, tt.wantKind)
			}
		})
	}
}

func TestWithResourceVersion(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    string
		wantErr bool
	}{
		{"sets the RV - pass", `{"metadata":{"name":"a","resourceVersion":"5"}}`, `{"metadata":{"name":"a","resourceVersion":"9"}}`, false},
		{"adds a missing RV - pass", `{"metadata":{"name":"a"},"data":{}}`, `{"data":{},"metadata":{"name":"a","resourceVersion":"9"}}`, false},
		{"metadata null after a named one - pass", `{"metadata":{"name":"a"},"metadata":null}`, `{"metadata":{"resourceVersion":"9"}}`, false},
		{"metadata not an object - fail", `{"metadata":7}`, "", true},
		{"not JSON - fail", `{`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := &history.Object{Name: "a", ResourceVersion: "5", Raw: []byte(tt.raw)}
			got, err := history.WithResourceVersion(o, "9")
			if (err != nil) != tt.wantErr {
				t.Fatalf("WithResourceVersion: got error %v, want error %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			if string(got.Raw) != tt.want || got.ResourceVersion != "9" {
				t.Errorf("WithResourceVersion: got %s at %s, want %s at 9", got.Raw, got.ResourceVersion, tt.want)
			}
			if o.ResourceVersion != "5" {
				t.Errorf("WithResourceVersion: changed its argument, want a copy")
			}
		})
	}
}

func TestObject_WithKind(t *testing.T) {
	o, _, _, err := history.ParseObject([]byte(`{"metadata":{"name":"a","namespace":"ns"},"data":{"k":"v"}}`))
	if err != nil {
		t.Fatalf("ParseObject: got error %v, want none", err)
	}
	const rest = `,"metadata":{"name":"a","namespace":"ns"},"data":{"k":"v"}}`
	tests := []struct {
		name, kind, apiVersion, want string
	}{
		{"with kind - core - pass", "ConfigMap", "v1", `{"kind":"ConfigMap","apiVersion":"v1"` + rest},
		{"with kind - group - pass", "Widget", "example.com/v1", `{"kind":"Widget","apiVersion":"example.com/v1"` + rest},
		{"with kind - quote and backslash escaped - pass", `A"b\c`, "v1", `{"kind":"A\"b\\c","apiVersion":"v1"` + rest},
		{"with kind - HTML characters escaped as json.Marshal does - pass", "a<b>&c", "v1", `{"kind":"a\u003cb\u003e\u0026c","apiVersion":"v1"` + rest},
		{"with kind - control character escaped - pass", "a\tb", "v1", `{"kind":"a\tb","apiVersion":"v1"` + rest},
		{"with kind - non-ASCII kept - pass", "Ärger", "v1", `{"kind":"Ärger","apiVersion":"v1"` + rest},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(o.WithKind(tt.kind, tt.apiVersion)); got != tt.want {
				t.Errorf("WithKind(%q, %q): got %s, want %s", tt.kind, tt.apiVersion, got, tt.want)
			}
			if got := string(o.AppendWithKind([]byte("prefix "), tt.kind, tt.apiVersion)); got != "prefix "+tt.want {
				t.Errorf("AppendWithKind(\"prefix \", %q, %q): got %s, want prefix %s", tt.kind, tt.apiVersion, got, tt.want)
			}
		})
	}
}
