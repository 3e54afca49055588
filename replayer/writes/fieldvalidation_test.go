package writes

import (
	"reflect"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
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
		{"strategic merge patch - unknown field, Strict - fail", "Strict", `{"bogus2":1}`, Patch, configmaps,
			` "" is invalid: patch: Invalid value: "map[bogus2:1]": strict decoding error: unknown field "bogus2"`, nil},
		{"merge patch - unknown field, Strict - fail", "Strict", `{"bogus2":1}`, Patch, configmaps,
			`strict decoding error: unknown field "bogus2"`, nil},
		{"merge patch - unknown field, Warn - pass", "Warn", `{"bogus2":1}`, Patch, configmaps, "", []string{`unknown field "bogus2"`}},
		{"strategic merge patch - unknown field, Ignore - pass", "Ignore", `{"bogus2":1}`, Patch, configmaps, "", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			st := mapState{}
			req := Request{Verb: c.verb, Kind: c.kind, Namespace: "ns", Body: []byte(c.body), FieldValidation: c.validation}
			if c.verb == Update || c.verb == Patch {
				made, err := Do(st, testEnv(), Request{Verb: Create, Kind: c.kind, Namespace: "ns", Body: []byte(`{"metadata":{"name":"a"}}`)})
				if err != nil {
					t.Fatal(err)
				}
				st[Key("ns", "a")] = made.Stored
				req.Name = "a"
				req.Body = []byte(strings.Replace(c.body, `"name":"a"`, `"name":"a","resourceVersion":"`+made.Stored.GetResourceVersion()+`"`, 1))
			}
			if c.verb == Patch {
				req.PatchType = types.StrategicMergePatchType
				if strings.HasPrefix(c.name, "merge") {
					req.PatchType = types.MergePatchType
				}
			}
			res, err := Do(st, testEnv(), req)
			switch {
			case c.wantErr != "" && c.verb == Patch: // 422 Invalid on the field "patch"
				if err == nil || !apierrors.IsInvalid(err) || !strings.HasSuffix(err.Error(), c.wantErr) {
					t.Fatalf("got error %v, want Invalid ending %q", err, c.wantErr)
				}
				return
			case c.wantErr != "":
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
