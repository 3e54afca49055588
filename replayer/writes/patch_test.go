package writes

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// Stored objects the tests patch.
const (
	storedConfigMap = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"ns","uid":"u1","resourceVersion":"5",
		"creationTimestamp":"2026-01-01T00:00:00Z"},"data":{"a":"1","b":"2"}}`
	storedDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d","namespace":"ns","uid":"u2","resourceVersion":"6",
		"creationTimestamp":"2026-01-01T00:00:00Z"},"spec":{"replicas":1,"selector":{"matchLabels":{"app":"d"}},
		"template":{"metadata":{"labels":{"app":"d"}},"spec":{"containers":[{"name":"app","image":"app:1"},{"name":"side","image":"side:1"}]}}}}`
	storedWidget = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","namespace":"ns","uid":"u3","resourceVersion":"7"},
		"spec":{"size":1,"items":["x","y"]}}`
)

// now is the virtual time the tests write at.
var now = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// object is js as an unstructured object; it fails t when js is not one.
func object(t *testing.T, js string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{}
	if err := u.UnmarshalJSON([]byte(js)); err != nil {
		t.Fatalf("object %s: %v", js, err)
	}
	return u
}

// valueAt is the value at the dotted path of obj ("spec.replicas"), a list
// index written as a number ("spec.template.spec.containers.0.image").
func valueAt(obj *unstructured.Unstructured, path string) any {
	var v any = obj.Object
	for _, p := range strings.Split(path, ".") {
		switch c := v.(type) {
		case map[string]any:
			v = c[p]
		case []any:
			var i int
			if _, err := fmt.Sscan(p, &i); err != nil || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}

// wantFields says how obj's fields differ from want (path → value, nil
// for absent): "" when they do not.
func wantFields(obj *unstructured.Unstructured, want map[string]any) string {
	var bad []string
	for p, w := range want {
		if got := valueAt(obj, p); !reflect.DeepEqual(got, w) {
			bad = append(bad, fmt.Sprintf("%s: got %#v, want %#v", p, got, w))
		}
	}
	return strings.Join(bad, "; ")
}

// statusMismatch says how err differs from a StatusError of code and reason
// whose message contains message: "" when it does not.
func statusMismatch(err error, code int32, reason, message string) string {
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		return fmt.Sprintf("got error %v, want a StatusError %d %s", err, code, reason)
	}
	s := se.ErrStatus
	if s.Code != code || string(s.Reason) != reason || !strings.Contains(s.Message, message) {
		return fmt.Sprintf("got %d %s %q, want %d %s with %q", s.Code, s.Reason, s.Message, code, reason, message)
	}
	return ""
}

// patchCase is one patch of a stored object: the fields it makes, or the
// error it gives.
type patchCase struct {
	name   string
	kind   Kind
	stored string
	pt     types.PatchType
	body   string
	fields map[string]any // path → value after the patch (nil: absent)
	code   int32          // the error's code; 0 for none
	reason string
	msg    string
}

// reqName is the name of the stored object of k the tests patch.
func reqName(k Kind) string {
	switch k.Resource.Resource {
	case "configmaps":
		return "c"
	case "deployments":
		return "d"
	}
	return "w"
}

// run runs c against patched.
func (c patchCase) run(t *testing.T) {
	old := object(t, c.stored)
	before := old.DeepCopy()
	req := Request{Verb: Patch, Kind: c.kind, Namespace: "ns", Name: reqName(c.kind), PatchType: c.pt, Body: []byte(c.body)}
	obj, _, err := patched(c.kind, old, req)
	if !reflect.DeepEqual(old, before) {
		t.Errorf("stored object changed: got %v, want %v", old, before)
	}
	if c.code != 0 {
		if s := statusMismatch(err, c.code, c.reason, c.msg); s != "" {
			t.Error(s)
		}
		return
	}
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	if s := wantFields(obj, c.fields); s != "" {
		t.Error(s)
	}
}

func TestPatched(t *testing.T) {
	cases := []patchCase{
		{name: "merge patch - configmap key set and key removed - pass", kind: configmaps, stored: storedConfigMap, pt: types.MergePatchType,
			body: `{"data":{"a":"9","b":null}}`, fields: map[string]any{"data.a": "9", "data.b": nil, "metadata.uid": "u1", "metadata.resourceVersion": "5"}},
		{name: "merge patch - not an object - fail", kind: configmaps, stored: storedConfigMap, pt: types.MergePatchType,
			body: `"x"`, code: 400, reason: "BadRequest", msg: "Invalid JSON Patch"},
		{name: "merge patch - configmap value of the wrong type - fail", kind: configmaps, stored: storedConfigMap, pt: types.MergePatchType,
			body: `{"data":{"a":5}}`, code: 422, reason: "Invalid", msg: `patch: Invalid value: "{\"apiVersion\":\"v1\",\"data\":{\"a\":5,\"b\":\"2\"}`},
		{name: "merge patch - deployment containers list replaced - pass", kind: deployments, stored: storedDeployment, pt: types.MergePatchType,
			body:   `{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"}]}}}}`,
			fields: map[string]any{"spec.template.spec.containers.0.image": "app:2", "spec.template.spec.containers.1": nil}},
		{name: "merge patch - widget spec field and unknown field - pass", kind: widgets, stored: storedWidget, pt: types.MergePatchType,
			body: `{"spec":{"size":3,"color":"red"}}`, fields: map[string]any{"spec.size": int64(3), "spec.color": "red", "spec.items": []any{"x", "y"}}},
		{name: "json patch - configmap add and remove - pass", kind: configmaps, stored: storedConfigMap, pt: types.JSONPatchType,
			body: `[{"op":"add","path":"/data/c","value":"3"},{"op":"remove","path":"/data/a"}]`, fields: map[string]any{"data.c": "3", "data.a": nil, "data.b": "2"}},
		{name: "json patch - test op that holds - pass", kind: configmaps, stored: storedConfigMap, pt: types.JSONPatchType,
			body: `[{"op":"test","path":"/data/a","value":"1"},{"op":"replace","path":"/data/a","value":"7"}]`, fields: map[string]any{"data.a": "7"}},
		{name: "json patch - test op that fails - fail", kind: configmaps, stored: storedConfigMap, pt: types.JSONPatchType,
			body: `[{"op":"test","path":"/data/a","value":"2"}]`, code: 422, reason: "Invalid", msg: "the server rejected our request due to an error in our request"},
		{name: "json patch - remove of a missing path - fail", kind: configmaps, stored: storedConfigMap, pt: types.JSONPatchType,
			body: `[{"op":"remove","path":"/data/zz"}]`, code: 422, reason: "Invalid", msg: "the server rejected our request"},
		{name: "json patch - not a list of operations - fail", kind: configmaps, stored: storedConfigMap, pt: types.JSONPatchType,
			body: `{}`, code: 400, reason: "BadRequest", msg: "json: cannot unmarshal object into Go value of type jsonpatch.Patch"},
		{name: "json patch - deployment patched as its Go type encodes it (status {}) - pass", kind: deployments, stored: storedDeployment, pt: types.JSONPatchType,
			body: `[{"op":"add","path":"/status/replicas","value":2}]`, fields: map[string]any{"status.replicas": int64(2)}},
		{name: "json patch - widget list item replaced - pass", kind: widgets, stored: storedWidget, pt: types.JSONPatchType,
			body: `[{"op":"replace","path":"/spec/items/1","value":"z"}]`, fields: map[string]any{"spec.items": []any{"x", "z"}}},
		{name: "strategic merge - deployment container merged by name - pass", kind: deployments, stored: storedDeployment, pt: types.StrategicMergePatchType,
			body: `{"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"}]}}}}`,
			fields: map[string]any{"spec.template.spec.containers.0.image": "app:2", "spec.template.spec.containers.1.name": "side",
				"spec.template.spec.containers.1.image": "side:1"}},
		{name: "strategic merge - deployment container deleted by $patch - pass", kind: deployments, stored: storedDeployment, pt: types.StrategicMergePatchType,
			body:   `{"spec":{"template":{"spec":{"containers":[{"name":"side","$patch":"delete"}]}}}}`,
			fields: map[string]any{"spec.template.spec.containers.0.name": "app", "spec.template.spec.containers.1": nil}},
		{name: "strategic merge - deployment through its Go type - pass", kind: deployments, stored: storedDeployment, pt: types.StrategicMergePatchType,
			body: `{"spec":{"replicas":3,"bogus":1}}`, fields: map[string]any{"spec.replicas": int64(3), "spec.bogus": nil, "status": map[string]any{}}},
		{name: "strategic merge - configmap value of the wrong type - fail", kind: configmaps, stored: storedConfigMap, pt: types.StrategicMergePatchType,
			body: `{"data":"x"}`, code: 422, reason: "Invalid", msg: `patch: Invalid value: "map[data:x]"`},
		{name: "strategic merge - not an object - fail", kind: configmaps, stored: storedConfigMap, pt: types.StrategicMergePatchType,
			body: `[1]`, code: 400, reason: "BadRequest", msg: "json: cannot unmarshal array into Go value of type map[string]interface {}"},
		{name: "strategic merge - unknown $patch directive, a plain error (500) - fail", kind: deployments, stored: storedDeployment, pt: types.StrategicMergePatchType,
			body: `{"spec":{"template":{"spec":{"containers":[{"name":"side","$patch":"bogus"}]}}}}`, code: 500, reason: "", msg: "unknown patch type: bogus in map"},
		{name: "strategic merge - custom resource - fail", kind: widgets, stored: storedWidget, pt: types.StrategicMergePatchType,
			body: `{"spec":{"size":2}}`, code: 415, reason: "UnsupportedMediaType",
			msg: "accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"},
		{name: "identity - name changed - fail", kind: configmaps, stored: storedConfigMap, pt: types.MergePatchType,
			body: `{"metadata":{"name":"other"}}`, code: 400, reason: "BadRequest", msg: "the name of the object (other) does not match the name on the URL (c)"},
		{name: "identity - namespace changed - fail", kind: widgets, stored: storedWidget, pt: types.JSONPatchType,
			body: `[{"op":"replace","path":"/metadata/namespace","value":"other"}]`, code: 400, reason: "BadRequest",
			msg: "the namespace of the provided object does not match the namespace sent on the request"},
		{name: "identity - namespace removed - pass", kind: configmaps, stored: storedConfigMap, pt: types.JSONPatchType,
			body: `[{"op":"remove","path":"/metadata/namespace"}]`, fields: map[string]any{"metadata.namespace": "ns"}},
		{name: "identity - uid changed - fail", kind: deployments, stored: storedDeployment, pt: types.MergePatchType,
			body: `{"metadata":{"uid":"other"}}`, code: 422, reason: "Invalid", msg: `Deployment.apps "d" is invalid: metadata.uid: Invalid value: "other": field is immutable`},
		{name: "patch type - apply is not patched - fail", kind: configmaps, stored: storedConfigMap, pt: types.ApplyYAMLPatchType,
			body: `{}`, code: 500, reason: "", msg: "application/apply-patch+yaml: unimplemented patch type"},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

// missing is a State without objects.
type missing struct{}

// Get finds nothing.
func (missing) Get(string) (*unstructured.Unstructured, bool) { return nil, false }

func TestPatchChecks(t *testing.T) {
	cases := []struct {
		name   string
		req    Request
		code   int32
		reason string
		msg    string
	}{
		{name: "patch type - unknown - fail", req: Request{Kind: configmaps, ContentType: "application/json", Body: []byte(`{}`)},
			code: 415, reason: "UnsupportedMediaType", msg: "the body of the request was in an unknown format - accepted media types include: " +
				"application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml"},
		{name: "patch type - from the content type with parameters - fail", req: Request{Kind: configmaps,
			ContentType: "application/merge-patch+json; charset=utf-8", Body: []byte(`{}`)}, code: 404, reason: "NotFound", msg: `configmaps "c" not found`},
		{name: "options - apply without a field manager - fail", req: Request{Kind: configmaps, PatchType: types.ApplyYAMLPatchType, Body: []byte(`{}`)},
			code: 422, reason: "Invalid", msg: `PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch`},
		{name: "options - force on a merge patch - fail", req: Request{Kind: configmaps, PatchType: types.MergePatchType, Force: true, Body: []byte(`{}`)},
			code: 422, reason: "Invalid", msg: "force: Forbidden: may not be specified for non-apply patch"},
		{name: "body - merge patch not JSON - fail", req: Request{Kind: configmaps, PatchType: types.MergePatchType, Body: []byte(`data: x`)},
			code: 400, reason: "BadRequest", msg: "invalid JSON patch"},
		{name: "body - apply not YAML - fail", req: Request{Kind: configmaps, PatchType: types.ApplyYAMLPatchType, FieldManager: "m", Body: []byte("a: [")},
			code: 400, reason: "BadRequest", msg: "error encoding patch: "},
		{name: "missing - apply to the status of a missing object - fail", req: Request{Kind: widgets, Name: "w", Subresource: "status",
			PatchType: types.ApplyYAMLPatchType, FieldManager: "m", Body: []byte(`{}`)}, code: 404, reason: "NotFound", msg: `widgets.example.com "w" not found`},
		{name: "missing - json patch of a missing object - fail", req: Request{Kind: deployments, Name: "d", PatchType: types.JSONPatchType, Body: []byte(`[]`)},
			code: 404, reason: "NotFound", msg: `deployments.apps "d" not found`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			req := c.req
			req.Verb, req.Namespace = Patch, "ns"
			if req.Name == "" {
				req.Name = "c"
			}
			_, err := Do(missing{}, Env{Now: now}, req)
			if s := statusMismatch(err, c.code, c.reason, c.msg); s != "" {
				t.Error(s)
			}
		})
	}
}
