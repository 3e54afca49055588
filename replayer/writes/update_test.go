package writes

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/lwreplay/lwreplay/history"
)

// TestUpdate checks the update rules.
func TestUpdate(t *testing.T) {
	st := mapState{
		"ns/c": stored(t, configmaps, "5", "uid-c", `{"metadata":{"name":"c","namespace":"ns"},"data":{"k":"v"}}`),
		"ns/d": stored(t, deployments, "6", "uid-d", `{"metadata":{"name":"d","namespace":"ns","generation":2,"labels":{"l":"1"}},"spec":{"replicas":1},"status":{"replicas":1}}`),
		"ns/w": stored(t, widgets, "7", "uid-w", `{"metadata":{"name":"w","namespace":"ns","generation":3},"spec":{"x":1},"status":{"s":1}}`),
		"ns/f": stored(t, widgets, "8", "uid-f", `{"metadata":{"name":"f","namespace":"ns","generation":1,"finalizers":["a"],"deletionTimestamp":"2026-01-02T03:04:05Z","deletionGracePeriodSeconds":0}}`),
	}
	cases := []struct {
		name, sub, body string
		kind            Kind
		code            int32
		reason, message string
		check           func(t *testing.T, res Result)
	}{
		{name: "update - configmap unconditional - pass", kind: configmaps, body: `{"metadata":{"name":"c"},"data":{"k":"w"}}`,
			check: func(t *testing.T, res Result) { wantMeta(t, res, 200, Modified, "c", "101", "uid-c", 0) }},
		{name: "update - configmap unchanged - pass", kind: configmaps, body: `{"metadata":{"name":"c","resourceVersion":"5"},"data":{"k":"v"}}`,
			check: func(t *testing.T, res Result) { wantMeta(t, res, 200, None, "c", "5", "uid-c", 0) }},
		{name: "update - deployment spec bumps generation, status kept - pass", kind: deployments, body: `{"metadata":{"name":"d","resourceVersion":"6"},"spec":{"replicas":2},"status":{"replicas":9}}`,
			check: func(t *testing.T, res Result) {
				wantMeta(t, res, 200, Modified, "d", "101", "uid-d", 3)
				if got := res.Stored.Object["status"].(map[string]any)["replicas"]; got != int64(1) {
					t.Errorf("got status.replicas %v, want 1", got)
				}
			}},
		{name: "update - deployment status write keeps spec and labels - pass", kind: deployments, sub: "status", body: `{"metadata":{"name":"d","resourceVersion":"6","labels":{"l":"2"}},"spec":{"replicas":5},"status":{"replicas":2}}`,
			check: func(t *testing.T, res Result) {
				wantMeta(t, res, 200, Modified, "d", "101", "uid-d", 2)
				if res.Stored.GetLabels()["l"] != "1" || res.Stored.Object["spec"].(map[string]any)["replicas"] != int64(1) {
					t.Errorf("got labels %v spec %v, want l=1 replicas 1", res.Stored.GetLabels(), res.Stored.Object["spec"])
				}
			}},
		{name: "update - widget metadata only keeps generation - pass", kind: widgets, body: `{"metadata":{"name":"w","resourceVersion":"7","labels":{"a":"b"}},"spec":{"x":1}}`,
			check: func(t *testing.T, res Result) { wantMeta(t, res, 200, Modified, "w", "101", "uid-w", 3) }},
		{name: "update - widget spec bumps generation - pass", kind: widgets, body: `{"metadata":{"name":"w","resourceVersion":"7"},"spec":{"x":2}}`,
			check: func(t *testing.T, res Result) { wantMeta(t, res, 200, Modified, "w", "101", "uid-w", 4) }},
		// store.go:633-683: finalizers emptied on a deleting object delete it; the answer is the updated object.
		{name: "update - finalizers emptied on a deleting widget - pass", kind: widgets, body: `{"metadata":{"name":"f","resourceVersion":"8"}}`,
			check: func(t *testing.T, res Result) {
				if res.Code != 200 || res.Event != Deleted || res.Stored.GetResourceVersion() != "101" || res.Answer.GetName() != "f" {
					t.Errorf("got %d %q stored rv %q, want 200 DELETED rv 101", res.Code, res.Event, res.Stored.GetResourceVersion())
				}
			}},
		// store.go:808 OptimisticLockErrorMsg.
		{name: "update - stale resourceVersion - fail", kind: deployments, body: `{"metadata":{"name":"d","resourceVersion":"1"}}`,
			code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on deployments.apps "d": the object has been modified; please apply your changes to the latest version and try again`},
		// store.go:800-805: custom resources need a resourceVersion; field.Error
		// renders the uint64 0 through json.Marshal, "0" (apimachinery v0.37.2
		// util/validation/field/errors.go:134-137; not the 0x0 of old releases).
		{name: "update - widget without resourceVersion - fail", kind: widgets, body: `{"metadata":{"name":"w"}}`,
			code: 422, reason: "Invalid", message: `widgets.example.com "w" is invalid: metadata.resourceVersion: Invalid value: 0: must be specified for an update`},
		// storage/interfaces.go:157-162 through InterpretUpdateError.
		{name: "update - uid differs - fail", kind: configmaps, body: `{"metadata":{"name":"c","uid":"other"}}`,
			code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on configmaps "c": StorageError: invalid object, Code: 4, Key: /registry/configmaps/ns/c, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: uid-c`},
		// configmap strategy AllowCreateOnUpdate false; customresource strategy.go:264.
		{name: "update - missing configmap - fail", kind: configmaps, body: `{"metadata":{"name":"gone"}}`,
			code: 404, reason: "NotFound", message: `configmaps "gone" not found`},
		{name: "update - missing widget - fail", kind: widgets, body: `{"metadata":{"name":"gone","resourceVersion":"1"}}`,
			code: 404, reason: "NotFound", message: `widgets.example.com "gone" not found`},
		// handlers/rest.go:281.
		{name: "update - name differs from the URL - fail", kind: configmaps, body: `{"metadata":{"name":"x"}}`,
			code: 400, reason: "BadRequest", message: "the name of the object (x) does not match the name on the URL (c)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			u := obj(t, c.kind, c.body)
			name := u.GetName()
			if c.name == "update - name differs from the URL - fail" {
				name = "c"
			}
			res, err := Do(st, testEnv(), Request{Verb: Update, Kind: c.kind, Namespace: "ns", Name: name, Subresource: c.sub, Body: body(t, u)})
			verify(t, res, err, c.code, c.reason, c.message, c.check)
		})
	}
}

// TestUpdateProtobufAndDryRun checks a protobuf update body, and that a
// dry run stores nothing and answers at the stored resourceVersion.
func TestUpdateProtobufAndDryRun(t *testing.T) {
	st := mapState{"ns/c": stored(t, configmaps, "5", "uid-c", `{"metadata":{"name":"c","namespace":"ns"},"data":{"k":"v"}}`)}
	b := protobufBody(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", ResourceVersion: "5"}, Data: map[string]string{"k": "p"}})
	req := Request{Verb: Update, Kind: configmaps, Namespace: "ns", Name: "c", Body: b, ContentType: runtime.ContentTypeProtobuf}
	res, err := Do(st, testEnv(), req)
	if err != nil {
		t.Fatalf("update - protobuf - pass: got %v, want no error", err)
	}
	wantMeta(t, res, 200, Modified, "c", "101", "uid-c", 0)
	req.DryRun = true
	res, err = Do(st, testEnv(), req)
	if err != nil {
		t.Fatalf("update - dry run - pass: got %v, want no error", err)
	}
	wantMeta(t, res, 200, None, "c", "5", "uid-c", 0)
}

// leases is a built-in kind whose strategy allows create on update.
var leases = Kind{Resource: history.Resource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Namespaced: true}, Builtin: true}

// TestUpdateMetadata checks what an update cannot change, the widget's
// status write, and create on update.
func TestUpdateMetadata(t *testing.T) {
	st := mapState{
		"ns/w":  stored(t, widgets, "7", "uid-w", `{"metadata":{"name":"w","namespace":"ns","generation":3,"labels":{"l":"1"}},"spec":{"x":1},"status":{"s":1}}`),
		"ns/wd": stored(t, widgets, "8", "uid-wd", `{"metadata":{"name":"wd","namespace":"ns","generation":2,"finalizers":["a","b"],"deletionTimestamp":"2026-01-01T00:00:00Z","deletionGracePeriodSeconds":0}}`),
	}
	before := st["ns/w"].DeepCopy()
	run := func(k Kind, name, sub, js string) (Result, error) {
		return Do(st, testEnv(), Request{Verb: Update, Kind: k, Namespace: "ns", Name: name, Subresource: sub, Body: body(t, obj(t, k, js))})
	}
	// rest/update.go BeforeUpdate: an update never removes a deletionTimestamp.
	res, err := run(widgets, "wd", "", `{"metadata":{"name":"wd","resourceVersion":"8","finalizers":["a"]}}`)
	if err != nil || res.Stored.GetDeletionTimestamp() == nil || res.Event != Modified {
		t.Errorf("update - deletionTimestamp dropped by the body - pass: got %v %v, want it kept, MODIFIED", err, res.Stored)
	}
	// api/validation/objectmeta.go:316-318.
	_, err = run(widgets, "wd", "", `{"metadata":{"name":"wd","resourceVersion":"8","finalizers":["a","b","c"]}}`)
	wantStatus(t, err, 422, "Invalid", `Widget.example.com "wd" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers []string{"c"}`)
	// api/validation/objectmeta.go:335: a deletionTimestamp cannot be set by an update.
	_, err = run(widgets, "w", "", `{"metadata":{"name":"w","resourceVersion":"7","deletionTimestamp":"2026-01-01T00:00:00Z"},"spec":{"x":1}}`)
	wantStatus(t, err, 422, "Invalid", "")
	// customresource status_strategy.go PrepareForUpdate: only status (and managedFields) change.
	res, err = run(widgets, "w", "status", `{"metadata":{"name":"w","resourceVersion":"7","labels":{"l":"2"}},"spec":{"x":9},"status":{"s":2}}`)
	if err != nil {
		t.Fatalf("update - widget status write - pass: got %v, want no error", err)
	}
	wantMeta(t, res, 200, Modified, "w", "101", "uid-w", 3)
	if res.Stored.GetLabels()["l"] != "1" || res.Stored.Object["spec"].(map[string]any)["x"] != int64(1) || res.Stored.Object["status"].(map[string]any)["s"] != int64(2) {
		t.Errorf("update - widget status write - pass: got %v, want labels and spec kept, status s=2", res.Stored.Object)
	}
	if !sameStored(st["ns/w"], before) || st["ns/w"].GetResourceVersion() != "7" {
		t.Errorf("update - state untouched - pass: got %v, want %v", st["ns/w"].Object, before.Object)
	}
	// coordination/lease strategy AllowCreateOnUpdate true: 201, created.
	res, err = run(leases, "l", "", `{"metadata":{"name":"l","resourceVersion":"3"},"spec":{"holderIdentity":"me"}}`)
	if err != nil {
		t.Fatalf("update - lease create on update - pass: got %v, want no error", err)
	}
	wantMeta(t, res, 201, Added, "l", "101", "uid-1", 0) // leases carry no generation
	// customresource_handler.go:353-357: no status subresource, NotFound.
	_, err = run(configmaps, "c", "status", `{"metadata":{"name":"c"}}`)
	wantStatus(t, err, 404, "NotFound", `configmaps "c" not found`)
	_, err = run(leases, "l2", "status", `{"metadata":{"name":"l2"}}`)
	wantStatus(t, err, 404, "NotFound", `leases.coordination.k8s.io "l2" not found`)
}
