package writes

import (
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

func TestFieldValidation(t *testing.T) {
	const unknown = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"},"bogus":1}`
	const dup = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":{"k":"v"},"data":{"k":"w"}}`
	const widget = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"a"},"bogus":1}`
	for _, c := range []struct {
		name, validation, body string
		verb                   Verb
		kind                   Kind
		wantErr                string // "" for none
		wantWarnings           []string
	}{
		{"create - unknown field, Strict - fail", "Strict", unknown, Create, configmaps,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"`, nil},
		{"create - duplicate field, Strict - fail", "Strict", dup, Create, configmaps,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data"`, nil},
		{"create - unknown field, Warn - pass", "Warn", unknown, Create, configmaps, "", []string{`unknown field "bogus"`}},
		{"create - unknown field, default (Warn) - pass", "", unknown, Create, configmaps, "", []string{`unknown field "bogus"`}},
		{"create - unknown field, Ignore - pass", "Ignore", unknown, Create, configmaps, "", nil},
		{"update - unknown field, Strict - fail", "Strict", unknown, Update, configmaps,
			`ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "bogus"`, nil},
		{"update - unknown field, Warn - pass", "Warn", unknown, Update, configmaps, "", []string{`unknown field "bogus"`}},
		{"create - custom resource, Strict - pass", "Strict", widget, Create, widgets, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := mapState{}
			req := Request{Verb: c.verb, Kind: c.kind, Namespace: "ns", Body: []byte(c.body), FieldValidation: c.validation}
			if c.verb == Update {
				made, err := Do(st, testEnv(), Request{Verb: Create, Kind: c.kind, Namespace: "ns", Body: []byte(`{"metadata":{"name":"a"}}`)})
				if err != nil {
					t.Fatal(err)
				}
				st[Key("ns", "a")] = made.Stored
				req.Name = "a"
				req.Body = []byte(strings.Replace(c.body, `"name":"a"`, `"name":"a","resourceVersion":"`+made.Stored.GetResourceVersion()+`"`, 1))
			}
			res, err := Do(st, testEnv(), req)
			if c.wantErr != "" {
				if err == nil || !apierrors.IsBadRequest(err) || err.Error() != c.wantErr {
					t.Fatalf("got error %v, want BadRequest %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if !reflect.DeepEqual(res.Warnings, c.wantWarnings) {
				t.Errorf("got warnings %q, want %q", res.Warnings, c.wantWarnings)
			}
		})
	}
}
