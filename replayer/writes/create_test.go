package writes

import (
	"bytes"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes/scheme"
)

// protobufBody is cm in client-go's protobuf encoding.
func protobufBody(t *testing.T, cm *corev1.ConfigMap) []byte {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		t.Fatal("no protobuf serializer")
	}
	cm.APIVersion, cm.Kind = "v1", "ConfigMap"
	var buf bytes.Buffer
	if err := info.Serializer.Encode(cm, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestCreate checks the create rules.
func TestCreate(t *testing.T) {
	existing := mapState{
		"ns/taken":     stored(t, configmaps, "5", "uid-old", `{"metadata":{"name":"taken","namespace":"ns"}}`),
		"ns/gen-aaaaa": stored(t, configmaps, "6", "uid-old", `{"metadata":{"name":"gen-aaaaa","namespace":"ns"}}`),
		"ns/going":     stored(t, widgets, "7", "uid-old", `{"metadata":{"name":"going","namespace":"ns","deletionTimestamp":"2026-01-02T03:04:05Z","finalizers":["f"]}}`),
	}
	cases := []struct {
		name    string
		kind    Kind
		sub     string
		body    string
		dryRun  bool
		code    int32  // of the error; 0 for a success
		reason  string // of the error
		message string // of the error
		check   func(t *testing.T, res Result)
	}{
		{name: "create - configmap - pass", kind: configmaps, body: `{"metadata":{"name":"a","uid":"mine","deletionTimestamp":"2020-01-01T00:00:00Z"},"data":{"k":"v"}}`,
			check: func(t *testing.T, res Result) {
				wantMeta(t, res, 201, Added, "a", "101", "uid-1", 0)
				if res.Stored.GetDeletionTimestamp() != nil {
					t.Errorf("got deletionTimestamp %v, want none (handlers/create.go:171 wipes it)", res.Stored.GetDeletionTimestamp())
				}
			}},
		{name: "create - deployment status reset to its empty status, generation 1 - pass", kind: deployments, body: `{"metadata":{"name":"d"},"spec":{"replicas":1},"status":{"replicas":3}}`,
			check: func(t *testing.T, res Result) {
				wantMeta(t, res, 201, Added, "d", "101", "uid-1", 1)
				if st, ok := res.Stored.Object["status"].(map[string]any); !ok || len(st) != 0 {
					t.Errorf("got status %v, want {} (the strategy resets it to DeploymentStatus{}, as the real apiserver answers)", res.Stored.Object["status"])
				}
			}},
		{name: "create - widget generation 1 - pass", kind: widgets, body: `{"metadata":{"name":"w"},"spec":{"x":1}}`,
			check: func(t *testing.T, res Result) { wantMeta(t, res, 201, Added, "w", "101", "uid-1", 1) }},
		{name: "create - generateName retried past a taken name - pass", kind: configmaps, body: `{"metadata":{"generateName":"gen-"}}`,
			// Each attempt fills a new uid, as store.go create does per attempt.
			check: func(t *testing.T, res Result) { wantMeta(t, res, 201, Added, "gen-bbbbb", "101", "uid-2", 0) }},
		{name: "create - dry run - pass", kind: widgets, body: `{"metadata":{"name":"w"}}`, dryRun: true,
			check: func(t *testing.T, res Result) { wantMeta(t, res, 201, None, "w", "", "uid-1", 1) }},
		// store.go:598 InterpretCreateError: NewAlreadyExists.
		{name: "create - name taken - fail", kind: configmaps, body: `{"metadata":{"name":"taken"}}`,
			code: 409, reason: "AlreadyExists", message: `configmaps "taken" already exists`},
		// store.go:609: a stored object being deleted prefixes the message.
		{name: "create - name of an object being deleted - fail", kind: widgets, body: `{"metadata":{"name":"going"}}`,
			code: 409, reason: "AlreadyExists", message: `object is being deleted: widgets.example.com "going" already exists`},
		// rest/meta.go:66.
		{name: "create - namespace differs - fail", kind: configmaps, body: `{"metadata":{"name":"a","namespace":"other"}}`,
			code: 400, reason: "BadRequest", message: "the namespace of the provided object does not match the namespace sent on the request"},
		// apimachinery api/validation/objectmeta.go:194.
		{name: "create - no name - fail", kind: widgets, body: `{"metadata":{}}`,
			code: 422, reason: "Invalid", message: `Widget.example.com "" is invalid: metadata.name: Required value: name or generateName is required`},
		// storage/errors.go:29 through ErrorToAPIStatus: a 500 without a reason.
		{name: "create - resourceVersion set - fail", kind: configmaps, body: `{"metadata":{"name":"a","resourceVersion":"3"}}`,
			code: 500, reason: "", message: "resourceVersion should not be set on objects to be created"},
		{name: "create - status subresource - fail", kind: deployments, sub: "status", body: `{"metadata":{"name":"d"}}`,
			code: 405, reason: "MethodNotAllowed"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := Do(existing, testEnv("aaaaa", "bbbbb"), Request{Verb: Create, Kind: c.kind, Namespace: "ns",
				Subresource: c.sub, Body: body(t, obj(t, c.kind, c.body)), ContentType: "application/json", DryRun: c.dryRun})
			verify(t, res, err, c.code, c.reason, c.message, c.check)
		})
	}
}

// TestCreateGenerateNameExhausted checks the 8 attempts' end: a
// GenerateNameConflict (rest/create.go CheckGeneratedNameError).
func TestCreateGenerateNameExhausted(t *testing.T) {
	st := mapState{"ns/g-zzzzz": stored(t, configmaps, "5", "u", `{"metadata":{"name":"g-zzzzz","namespace":"ns"}}`)}
	_, err := Do(st, testEnv(), Request{Verb: Create, Kind: configmaps, Namespace: "ns", Body: body(t, obj(t, configmaps, `{"metadata":{"generateName":"g-"}}`))})
	wantStatus(t, err, 409, "AlreadyExists", `configmaps "g-zzzzz" already exists, the server was not able to generate a unique name for the object`)
}

// TestCreateProtobuf checks a protobuf body creates like a JSON one.
func TestCreateProtobuf(t *testing.T) {
	b := protobufBody(t, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Data: map[string]string{"k": "v"}})
	res, err := Do(mapState{}, testEnv(), Request{Verb: Create, Kind: configmaps, Namespace: "ns", Body: b, ContentType: runtime.ContentTypeProtobuf})
	if err != nil {
		t.Fatalf("create - protobuf configmap - pass: got %v, want no error", err)
	}
	wantMeta(t, res, 201, Added, "p", "101", "uid-1", 0)
	if got := res.Stored.Object["data"]; got.(map[string]any)["k"] != "v" {
		t.Errorf("create - protobuf configmap - pass: got data %v, want k: v", got)
	}
	_, err = Do(mapState{}, testEnv(), Request{Verb: Create, Kind: widgets, Namespace: "ns", Body: b, ContentType: runtime.ContentTypeProtobuf})
	wantStatus(t, err, 415, "UnsupportedMediaType", "")
}

// wantMeta checks a write's code, event and the answer's metadata
// (generation 0: none); the answer is the stored object, a copy.
func wantMeta(t *testing.T, res Result, code int, ev Event, name, rv, uid string, gen int64) {
	t.Helper()
	if res.Code != code || res.Event != ev {
		t.Errorf("got %d %q, want %d %q", res.Code, res.Event, code, ev)
	}
	a := res.Answer
	if a == nil {
		t.Fatalf("got no answer, want %s", name)
	}
	if a.GetName() != name || a.GetResourceVersion() != rv || string(a.GetUID()) != uid || a.GetGeneration() != gen {
		t.Errorf("got %s rv %q uid %q generation %d, want %s rv %q uid %q generation %d",
			a.GetName(), a.GetResourceVersion(), a.GetUID(), a.GetGeneration(), name, rv, uid, gen)
	}
	if ev == None && res.Stored != nil {
		t.Errorf("got stored %v, want nil", res.Stored)
	}
	if res.AnswerIsStored != (res.Stored == a) {
		t.Errorf("got the answer the stored object %v and AnswerIsStored %v, want them to agree", res.Stored == a, res.AnswerIsStored)
	}
	if (ev == Added || ev == Modified) && !res.AnswerIsStored && a.GetKind() != "Status" {
		t.Errorf("got a %s answered with a copy of the stored object, want the stored object itself (AnswerIsStored)", ev)
	}
}
