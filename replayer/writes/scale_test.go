package writes

import (
	"bytes"
	"net/http"
	"slices"
	"strings"
	"testing"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/lwreplay/lwreplay/history"
)

// More kinds the scale tests use.
var (
	replicationcontrollers = Kind{Resource: history.Resource{Version: "v1", Resource: "replicationcontrollers", Kind: "ReplicationController", Namespaced: true}, Builtin: true, Status: true}
	statefulsets           = Kind{Resource: history.Resource{Group: "apps", Version: "v1", Resource: "statefulsets", Kind: "StatefulSet", Namespaced: true}, Builtin: true, Status: true}
)

// webDeployment is the deployment the scale tests scale.
const webDeployment = `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"web"},"spec":{"replicas":1,` +
	`"selector":{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]}]},` +
	`"template":{"metadata":{"labels":{"app":"web","tier":"a"}},"spec":{"containers":[{"name":"a","image":"busybox:1"}]}}}}`

// scaleSummary renders a Scale: kind, name, rv, spec.replicas,
// status.replicas, status.selector, and whether it has managedFields.
func scaleSummary(s *unstructured.Unstructured) []any {
	spec, _, _ := unstructured.NestedInt64(s.Object, "spec", "replicas")
	status, _, _ := unstructured.NestedInt64(s.Object, "status", "replicas")
	sel, _, _ := unstructured.NestedString(s.Object, "status", "selector")
	return []any{s.GetAPIVersion() + "/" + s.GetKind(), s.GetName(), s.GetResourceVersion(), spec, status, sel, len(s.GetManagedFields()) > 0}
}

// TestScaleOf checks the Scale of each kind that has one
// (scaleFromDeployment, scaleFromRC, ...).
func TestScaleOf(t *testing.T) {
	tests := []struct {
		name string
		kind Kind
		obj  string
		want []any
		code int32
	}{
		// the real server's GET of this deployment's scale: "app=web,tier in (a,b)".
		{name: "scale of - deployment with expressions - pass", kind: deployments,
			obj:  `{"metadata":{"name":"web","namespace":"ns","resourceVersion":"7","managedFields":[{"manager":"m","operation":"Update","apiVersion":"apps/v1","fieldsType":"FieldsV1","fieldsV1":{}}]},"spec":{"replicas":3,"selector":{"matchLabels":{"app":"web"},"matchExpressions":[{"key":"tier","operator":"In","values":["a","b"]}]}},"status":{"replicas":2}}`,
			want: []any{"autoscaling/v1/Scale", "web", "7", int64(3), int64(2), "app=web,tier in (a,b)", false}},
		{name: "scale of - replicationcontroller's map selector - pass", kind: replicationcontrollers,
			obj:  `{"metadata":{"name":"rc","namespace":"ns","resourceVersion":"8"},"spec":{"replicas":2,"selector":{"b":"c","app":"rc"}}}`,
			want: []any{"autoscaling/v1/Scale", "rc", "8", int64(2), int64(0), "app=rc,b=c", false}},
		{name: "scale of - statefulset without replicas reads 0 - pass", kind: statefulsets,
			obj:  `{"metadata":{"name":"ss","namespace":"ns","resourceVersion":"9"},"spec":{"selector":{"matchLabels":{"app":"ss"}}}}`,
			want: []any{"autoscaling/v1/Scale", "ss", "9", int64(0), int64(0), "app=ss", false}},
		{name: "scale of - bad selector operator - fail", kind: deployments,
			obj: `{"metadata":{"name":"web","namespace":"ns"},"spec":{"selector":{"matchExpressions":[{"key":"k","operator":"Near"}]}}}`, code: 400},
		{name: "scale of - configmap has none - fail", kind: configmaps, obj: `{"metadata":{"name":"c","namespace":"ns"}}`, code: 404},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ScaleOf(tc.kind, obj(t, tc.kind, tc.obj))
			if tc.code != 0 {
				wantStatus(t, err, tc.code, map[int32]string{400: "BadRequest", 404: "NotFound"}[tc.code], "")
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if s := scaleSummary(got); !slices.Equal(s, tc.want) {
				t.Errorf("got %v, want %v", s, tc.want)
			}
		})
	}
}

// scaleStep is a write to web's scale, and what it answers and stores.
type scaleStep struct {
	name      string
	req       Request
	code      int32
	reason    string
	message   string
	event     Event
	answer    []any    // scaleSummary of the answer
	gen       int64    // the stored deployment's generation
	managers  []string // the stored deployment's managedFields: "manager operation subresource fields"
	statusTen bool     // the stored status.replicas stays 10
}

// TestScale runs writes to a deployment's scale in order, each on the
// state the ones before left, as the real server's transcript does.
func TestScale(t *testing.T) {
	env := testEnv()
	st := mapState{}
	create := Request{Verb: Create, Kind: deployments, Namespace: "ns", Body: []byte(webDeployment), ContentType: "application/json", UserAgent: "client/1"}
	res, err := Do(st, env, create)
	if err != nil {
		t.Fatalf("create: got %v, want none", err)
	}
	res.Stored.Object["status"] = map[string]any{"replicas": int64(10)} // a controller's; a scale write keeps it
	st["ns/web"] = res.Stored
	put := func(js string) Request {
		return Request{Verb: Update, Kind: deployments, Namespace: "ns", Name: "web", Subresource: "scale", Body: []byte(js), ContentType: "application/json", UserAgent: "client/1"}
	}
	pat := func(pt types.PatchType, js string) Request {
		return Request{Verb: Patch, Kind: deployments, Namespace: "ns", Name: "web", Subresource: "scale", Body: []byte(js), ContentType: string(pt), PatchType: pt, UserAgent: "client/1"}
	}
	// the create's entry, which the first scale write takes spec.replicas from
	created := managerLines(res.Stored)
	if len(created) != 1 || !strings.Contains(created[0], `"f:replicas":{},`) {
		t.Fatalf("create: got managedFields %q, want one entry with spec.replicas", created)
	}
	mainEntry := strings.Replace(created[0], `"f:replicas":{},`, "", 1)
	scaleEntry := `client Update scale {"f:spec":{"f:replicas":{}}}`
	steps := []scaleStep{
		// store.go:786-809 through ScaleREST: the Conflict names the parent resource.
		{name: "scale - PUT with a stale resourceVersion - fail", req: put(`{"metadata":{"name":"web","resourceVersion":"1"},"spec":{"replicas":3}}`),
			code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on deployments.apps "web": the object has been modified; please apply your changes to the latest version and try again`},
		// storage.go:473-481: replicas and RV move to the deployment; the ScaleHandler gives the scale writer spec.replicas (no time).
		{name: "scale - PUT without a resourceVersion - pass", req: put(`{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":2}}`),
			event: Modified, answer: []any{"autoscaling/v1/Scale", "web", "102", int64(2), int64(10), "app=web,tier in (a,b)", false}, gen: 2,
			managers: []string{scaleEntry, mainEntry}, statusTen: true},
		{name: "scale - PUT naming another object - fail", req: put(`{"metadata":{"name":"other"},"spec":{"replicas":2}}`),
			code: 400, reason: "BadRequest", message: "the name of the object (other) does not match the name on the URL (web)"},
		{name: "scale - PUT with another uid - fail", req: put(`{"metadata":{"name":"web","uid":"other"},"spec":{"replicas":4}}`),
			code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on deployments.apps "web": StorageError: invalid object, Code: 4, Key: /registry/deployments/ns/web, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: uid-1`},
		// autoscaling validation ValidateScale.
		{name: "scale - negative replicas - fail", req: put(`{"metadata":{"name":"web"},"spec":{"replicas":-1}}`),
			code: 422, reason: "Invalid", message: `Scale.autoscaling "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0`},
		{name: "scale - merge patch of spec.replicas - pass", req: pat(types.MergePatchType, `{"spec":{"replicas":5}}`),
			event: Modified, answer: []any{"autoscaling/v1/Scale", "web", "103", int64(5), int64(10), "app=web,tier in (a,b)", false}, gen: 3,
			managers: []string{scaleEntry, mainEntry}, statusTen: true},
		{name: "scale - merge patch changing nothing - pass", req: pat(types.MergePatchType, `{"spec":{"replicas":5}}`),
			event: None, answer: []any{"autoscaling/v1/Scale", "web", "103", int64(5), int64(10), "app=web,tier in (a,b)", false}},
		// the Scale's labels and status are not the deployment's: nothing changes.
		{name: "scale - merge patch of labels and status - pass", req: pat(types.MergePatchType, `{"metadata":{"labels":{"x":"y"}},"status":{"replicas":1}}`),
			event: None, answer: []any{"autoscaling/v1/Scale", "web", "103", int64(5), int64(10), "app=web,tier in (a,b)", false}},
		{name: "scale - json patch - pass", req: pat(types.JSONPatchType, `[{"op":"replace","path":"/spec/replicas","value":6}]`),
			event: Modified, answer: []any{"autoscaling/v1/Scale", "web", "104", int64(6), int64(10), "app=web,tier in (a,b)", false}, gen: 4,
			managers: []string{scaleEntry, mainEntry}, statusTen: true},
		{name: "scale - strategic merge patch - pass", req: pat(types.StrategicMergePatchType, `{"spec":{"replicas":7}}`),
			event: Modified, answer: []any{"autoscaling/v1/Scale", "web", "105", int64(7), int64(10), "app=web,tier in (a,b)", false}, gen: 5,
			managers: []string{scaleEntry, mainEntry}, statusTen: true},
		{name: "scale - dry run - pass", req: with(pat(types.MergePatchType, `{"spec":{"replicas":9}}`), func(r *Request) { r.DryRun = true }),
			event: None, answer: []any{"autoscaling/v1/Scale", "web", "105", int64(9), int64(10), "app=web,tier in (a,b)", false}},
		// the real server's message for the same apply.
		{name: "scale - apply conflicting with the scale writer - fail",
			req:  with(pat(types.ApplyYAMLPatchType, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":8}}`), func(r *Request) { r.FieldManager = "hpa" }),
			code: 409, reason: "Conflict", message: `Apply failed with 1 conflict: conflict with "client" with subresource "scale" using autoscaling/v1: .spec.replicas`},
		{name: "scale - apply forced - pass",
			req:   with(pat(types.ApplyYAMLPatchType, `{"apiVersion":"autoscaling/v1","kind":"Scale","metadata":{"name":"web"},"spec":{"replicas":8}}`), func(r *Request) { r.FieldManager = "hpa"; r.Force = true }),
			event: Modified, answer: []any{"autoscaling/v1/Scale", "web", "106", int64(8), int64(10), "app=web,tier in (a,b)", false}, gen: 6,
			managers: []string{`hpa Apply scale {"f:spec":{"f:replicas":{}}}`, mainEntry}, statusTen: true},
		// the replicas of 0 leave the Scale's spec empty: no one owns them (the real server's managedFields alike).
		{name: "scale - merge patch to 0 - pass", req: pat(types.MergePatchType, `{"spec":{"replicas":0}}`),
			event: Modified, answer: []any{"autoscaling/v1/Scale", "web", "107", int64(0), int64(10), "app=web,tier in (a,b)", false}, gen: 7,
			managers: []string{mainEntry}, statusTen: true},
		{name: "scale - missing object - fail", req: with(put(`{"metadata":{"name":"gone"},"spec":{"replicas":1}}`), func(r *Request) { r.Name = "gone" }),
			code: 404, reason: "NotFound", message: `deployments.apps "gone" not found`},
		{name: "scale - a kind without one - fail", req: with(put(`{"metadata":{"name":"web"}}`), func(r *Request) { r.Kind = configmaps }),
			code: 404, reason: "NotFound", message: "the server could not find the requested resource"},
		{name: "scale - DELETE has no route - fail", req: with(put(""), func(r *Request) { r.Verb = Delete }),
			code: 405, reason: "MethodNotAllowed", message: "the server does not allow this method on the requested resource"},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) {
			res, err := Do(st, env, s.req)
			if s.code != 0 {
				wantStatus(t, err, s.code, s.reason, s.message)
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if res.Code != http.StatusOK || res.Event != s.event {
				t.Errorf("got %d %q, want 200 %q", res.Code, res.Event, s.event)
			}
			if got := scaleSummary(res.Answer); !slices.Equal(got, s.answer) {
				t.Errorf("answer: got %v, want %v", got, s.answer)
			}
			if res.AnswerIsStored {
				t.Errorf("AnswerIsStored: got true, want false (the answer is the Scale, not the stored %s)", res.Stored.GetKind())
			}
			if s.event == None {
				return
			}
			d := res.Stored
			st["ns/web"] = d
			replicas, _, _ := unstructured.NestedInt64(d.Object, "spec", "replicas")
			status, _, _ := unstructured.NestedInt64(d.Object, "status", "replicas")
			if replicas != s.answer[3] || d.GetGeneration() != s.gen || d.GetKind() != "Deployment" || (s.statusTen && status != 10) {
				t.Errorf("stored: got %s replicas %d generation %d status.replicas %d, want a Deployment, replicas %v generation %d status.replicas 10",
					d.GetKind(), replicas, d.GetGeneration(), status, s.answer[3], s.gen)
			}
			if got := managerLines(d); !slices.Equal(got, s.managers) {
				t.Errorf("managedFields: got %q, want %q", got, s.managers)
			}
		})
	}
}

// managerLines are obj's managedFields as "manager operation subresource
// fields". The scale entry has no time, as the real server leaves it. A
// line ends " timed" when its entry has one and is not the main one.
func managerLines(obj *unstructured.Unstructured) []string {
	var out []string
	for _, e := range obj.GetManagedFields() {
		s := e.Manager + " " + string(e.Operation) + " " + e.Subresource + " " + string(e.FieldsV1.Raw)
		if e.Time != nil && e.Subresource != "" {
			s += " timed"
		}
		out = append(out, s)
	}
	return out
}

// with returns r changed by fn.
func with(r Request, fn func(*Request)) Request {
	fn(&r)
	return r
}

// TestScaleProtobuf checks a PUT of a Scale in protobuf, as client-go's
// typed UpdateScale sends it.
func TestScaleProtobuf(t *testing.T) {
	env := testEnv()
	res, err := Do(mapState{}, env, Request{Verb: Create, Kind: deployments, Namespace: "ns", Body: []byte(webDeployment), ContentType: "application/json"})
	if err != nil {
		t.Fatalf("create: got %v, want none", err)
	}
	st := mapState{"ns/web": res.Stored}
	b := protobufScale(t, "web", 4)
	res, err = Do(st, env, Request{Verb: Update, Kind: deployments, Namespace: "ns", Name: "web", Subresource: "scale", Body: b, ContentType: runtime.ContentTypeProtobuf})
	if err != nil {
		t.Fatalf("scale - protobuf PUT - pass: got %v, want none", err)
	}
	if got, want := scaleSummary(res.Answer), []any{"autoscaling/v1/Scale", "web", "102", int64(4), int64(0), "app=web,tier in (a,b)", false}; !slices.Equal(got, want) {
		t.Errorf("scale - protobuf PUT - pass: got %v, want %v", got, want)
	}
}

// protobufScale is a Scale of name to replicas in client-go's protobuf
// encoding.
func protobufScale(t *testing.T, name string, replicas int32) []byte {
	t.Helper()
	info, ok := runtime.SerializerInfoForMediaType(scheme.Codecs.SupportedMediaTypes(), runtime.ContentTypeProtobuf)
	if !ok {
		t.Fatal("no protobuf serializer")
	}
	s := &autoscalingv1.Scale{TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: autoscalingv1.ScaleSpec{Replicas: replicas}}
	var buf bytes.Buffer
	if err := info.Serializer.Encode(s, &buf); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
