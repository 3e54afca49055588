package writes

import (
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// earlier is a time before now, when the stored objects were applied.
var earlier = now.Add(-time.Hour)

// Apply bodies, YAML and JSON.
const (
	cmByA       = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  k: v\n"
	cmByB       = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"w"}}`
	cmSameByB   = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"k":"v"}}`
	depByA      = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:1"}]}}},"status":{"replicas":3}}`
	depSideByB  = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[{"name":"side","image":"side:1"}]}}}}`
	depAppByB   = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"template":{"spec":{"containers":[{"name":"app","image":"app:2"}]}}}}`
	widgetByA   = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"items":["x","y"]}}`
	widgetByB   = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"items":["x","y","z"]}}`
	widgetStats = `{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w"},"spec":{"items":["q"]},"status":{"ready":true}}`
)

// apply is an apply request to k's object of the tests, by manager.
func apply(k Kind, manager, body string, force bool) Request {
	return Request{Verb: Patch, Kind: k, Namespace: "ns", Name: reqName(k), PatchType: types.ApplyYAMLPatchType,
		ContentType: string(types.ApplyYAMLPatchType), FieldManager: manager, Force: force, Body: []byte(body)}
}

// appliedBy is k's object as manager's apply of body at earlier creates
// it; it fails t when the apply does.
func appliedBy(t *testing.T, k Kind, manager, body string) *unstructured.Unstructured {
	t.Helper()
	obj, err := applied(k, nil, apply(k, manager, body, false), earlier)
	if err != nil {
		t.Fatalf("apply by %s: %v", manager, err)
	}
	obj.SetUID("u")
	return obj
}

// entries are obj's managedFields entries, one line each: manager,
// operation, subresource, time and fields.
func entries(obj *unstructured.Unstructured) []string {
	var out []string
	for _, e := range obj.GetManagedFields() {
		at, fields := "no-time", "no-fields"
		if e.Time != nil {
			at = e.Time.UTC().Format(time.RFC3339)
		}
		if e.FieldsV1 != nil {
			fields = string(e.FieldsV1.Raw)
		}
		out = append(out, fmt.Sprintf("%s %s %q %s %s", e.Manager, e.Operation, e.Subresource, at, fields))
	}
	return out
}

// applyCase is one apply to an object (nil: none stored): the fields it
// makes and the managedFields entries it leaves, or the error it gives.
type applyCase struct {
	name    string
	kind    Kind
	live    func(t *testing.T) *unstructured.Unstructured
	req     Request
	fields  map[string]any
	entries []string
	code    int32
	reason  string
	msg     string
	causes  []metav1.StatusCause
}

// run runs c against applied.
func (c applyCase) run(t *testing.T) {
	var live *unstructured.Unstructured
	if c.live != nil {
		live = c.live(t)
	}
	var before *unstructured.Unstructured
	if live != nil {
		before = live.DeepCopy()
	}
	obj, err := applied(c.kind, live, c.req, now)
	if live != nil && !reflect.DeepEqual(live, before) {
		t.Errorf("live object changed: got %v, want %v", live, before)
	}
	if c.code != 0 {
		if s := statusMismatch(err, c.code, c.reason, c.msg); s != "" {
			t.Fatal(s)
		}
		var se *apierrors.StatusError
		if c.causes != nil && errors.As(err, &se) {
			if got := se.ErrStatus.Details.Causes; !reflect.DeepEqual(got, c.causes) {
				t.Errorf("causes: got %+v, want %+v", got, c.causes)
			}
		}
		return
	}
	if err != nil {
		t.Fatalf("got error %v, want none", err)
	}
	if s := wantFields(obj, c.fields); s != "" {
		t.Error(s)
	}
	if got := entries(obj); !reflect.DeepEqual(got, c.entries) {
		t.Errorf("managedFields: got %q, want %q", got, c.entries)
	}
}

func TestApplied(t *testing.T) {
	cm := func(t *testing.T) *unstructured.Unstructured { return appliedBy(t, configmaps, "a", cmByA) }
	dep := func(t *testing.T) *unstructured.Unstructured { return appliedBy(t, deployments, "a", depByA) }
	widget := func(t *testing.T) *unstructured.Unstructured { return appliedBy(t, widgets, "a", widgetByA) }
	const (
		at      = "2026-01-02T03:04:05Z"
		atFirst = "2026-01-02T02:04:05Z"
		cmK     = `{"f:data":{"f:k":{}}}`
	)
	cases := []applyCase{
		{name: "apply - configmap created from YAML - pass", kind: configmaps, req: apply(configmaps, "a", cmByA, false),
			fields:  map[string]any{"data.k": "v", "metadata.namespace": "ns", "metadata.name": "c", "metadata.uid": nil},
			entries: []string{`a Apply "" ` + at + " " + cmK}},
		{name: "apply - second manager conflicting - fail", kind: configmaps, live: cm, req: apply(configmaps, "b", cmByB, false),
			code: 409, reason: "Conflict", msg: `Apply failed with 1 conflict: conflict with "a": .data.k`,
			causes: []metav1.StatusCause{{Type: metav1.CauseTypeFieldManagerConflict, Message: `conflict with "a"`, Field: ".data.k"}}},
		{name: "apply - second manager forcing takes the field - pass", kind: configmaps, live: cm, req: apply(configmaps, "b", cmByB, true),
			fields: map[string]any{"data.k": "w"}, entries: []string{`b Apply "" ` + at + " " + cmK}},
		{name: "apply - second manager agreeing shares the field - pass", kind: configmaps, live: cm, req: apply(configmaps, "b", cmSameByB, false),
			fields: map[string]any{"data.k": "v"}, entries: []string{`b Apply "" ` + at + " " + cmK, `a Apply "" ` + atFirst + " " + cmK}},
		{name: "apply - deployment containers merged by name - pass", kind: deployments, live: dep, req: apply(deployments, "b", depSideByB, false),
			fields: map[string]any{"spec.template.spec.containers.0.name": "app", "spec.template.spec.containers.1.name": "side"},
			entries: []string{
				`a Apply "" ` + atFirst + ` {"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`,
				`b Apply "" ` + at + ` {"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"side\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`}},
		{name: "apply - deployment container image of another manager - fail", kind: deployments, live: dep, req: apply(deployments, "b", depAppByB, false),
			code: 409, reason: "Conflict", msg: `Apply failed with 1 conflict: conflict with "a": .spec.template.spec.containers[name="app"].image`},
		{name: "apply - deployment status applied to the main resource is not owned - pass", kind: deployments, req: apply(deployments, "a", depByA, false),
			fields:  map[string]any{"spec.template.spec.containers.0.image": "app:1"},
			entries: []string{`a Apply "" ` + at + ` {"f:spec":{"f:template":{"f:spec":{"f:containers":{"k:{\"name\":\"app\"}":{".":{},"f:image":{},"f:name":{}}}}}}}`}},
		{name: "apply - widget list is atomic under a deduced schema - fail", kind: widgets, live: widget, req: apply(widgets, "b", widgetByB, false),
			code: 409, reason: "Conflict", msg: `Apply failed with 1 conflict: conflict with "a": .spec.items`},
		{name: "apply - widget status subresource owns status only, spec left to store's reset - pass", kind: widgets, live: widget,
			req:     func() Request { r := apply(widgets, "s", widgetStats, false); r.Subresource = "status"; return r }(),
			fields:  map[string]any{"status.ready": true, "spec.items": []any{"q"} /* store resets spec, as the status strategy does */},
			entries: []string{`a Apply "" ` + atFirst + ` {"f:spec":{".":{},"f:items":{}}}`, `s Apply "status" ` + at + ` {"f:status":{".":{},"f:ready":{}}}`}},
		{name: "apply - name other than the URL's - fail", kind: configmaps, req: func() Request { r := apply(configmaps, "a", cmByA, false); r.Name = "x"; return r }(),
			code: 400, reason: "BadRequest", msg: "the name of the object (c) does not match the name on the URL (x)"},
		{name: "apply - other apiVersion - fail", kind: configmaps, req: apply(configmaps, "a", `{"apiVersion":"v2","kind":"ConfigMap","metadata":{"name":"c"}}`, false),
			code: 400, reason: "BadRequest", msg: "invalid object type: /v2, Kind=ConfigMap"},
		{name: "apply - managedFields in the body - fail", kind: configmaps,
			req:  apply(configmaps, "a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","managedFields":[{"manager":"x"}]}}`, false),
			code: 400, reason: "BadRequest", msg: "metadata.managedFields must be nil"},
		{name: "apply - uid creating a missing object - fail", kind: configmaps,
			req:  apply(configmaps, "a", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","uid":"u9"}}`, false),
			code: 409, reason: "Conflict", msg: "uid mismatch: the provided object specified uid u9, and no existing object was found"},
		{name: "apply - without a field manager - fail", kind: configmaps, req: apply(configmaps, "", cmByA, false),
			code: 422, reason: "Invalid", msg: "fieldManager: Required value: is required for apply patch"},
		{name: "apply - body not YAML - fail", kind: configmaps, req: apply(configmaps, "a", "a: [", false),
			code: 400, reason: "BadRequest", msg: "error decoding patch: "},
	}
	for _, c := range cases {
		t.Run(c.name, c.run)
	}
}

func TestTrackUpdate(t *testing.T) {
	old := appliedBy(t, configmaps, "a", cmByA)
	changed := old.DeepCopy()
	if err := unstructured.SetNestedField(changed.Object, "2", "data", "b"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name        string
		subresource string
		obj         *unstructured.Unstructured
		manager     string
		want        []string
	}{
		{name: "update - configmap key added by a user agent's manager - pass", obj: changed,
			manager: managerOrUserAgent("", "kube-controller-manager/v1.37.2 (linux/amd64) kubernetes/abc"),
			want: []string{`a Apply "" 2026-01-02T02:04:05Z {"f:data":{"f:k":{}}}`,
				`kube-controller-manager Update "" 2026-01-02T03:04:05Z {"f:data":{"f:b":{}}}`}},
		{name: "update - nothing changed records nothing - pass", obj: old, manager: "m",
			want: []string{`a Apply "" 2026-01-02T02:04:05Z {"f:data":{"f:k":{}}}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := trackUpdate(configmaps, c.subresource, old, c.obj, c.manager, now, nil, nil)
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if e := entries(got); !reflect.DeepEqual(e, c.want) {
				t.Errorf("managedFields: got %q, want %q", e, c.want)
			}
		})
	}
}

func TestManagerOrUserAgent(t *testing.T) {
	long := ""
	for range 130 {
		long += "x"
	}
	cases := []struct{ name, manager, userAgent, want string }{
		{"manager - the parameter wins - pass", "m", "kubectl/v1.37", "m"},
		{"manager - user agent up to its slash - pass", "", "kubectl/v1.37.2 (linux/amd64)", "kubectl"},
		{"manager - unprintable runes dropped - pass", "", "ku\x01be", "kube"},
		{"manager - cut to 128 bytes - pass", "", long, long[:128]},
		{"manager - no user agent - pass", "", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := managerOrUserAgent(c.manager, c.userAgent); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}

func TestFieldManagerForConcurrent(t *testing.T) {
	k := widgets
	k.Resource.Kind = "Gadget" // a kind no other test has made a manager for
	var wg sync.WaitGroup
	got := make([]any, 8)
	for i := range got {
		wg.Go(func() {
			fm, err := fieldManagerFor(k, "")
			if err != nil {
				t.Errorf("got error %v, want none", err)
			}
			got[i] = fm
		})
	}
	wg.Wait()
	for i := range got {
		if got[i] != got[0] {
			t.Fatalf("field manager - made concurrently - fail: got %p for call %d, want %p", got[i], i, got[0])
		}
	}
}
