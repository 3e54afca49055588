package writes

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"

	"github.com/lwreplay/lwreplay/history"
)

// namespaces is the core namespaces resource.
var namespaces = Kind{Resource: history.Resource{Version: "v1", Resource: "namespaces", Kind: "Namespace"}, Builtin: true, Status: true}

// TestNamespaces checks kube-apiserver's namespace rules (k8s.io/kubernetes
// v1.37.2 pkg/registry/core/namespace: strategy.go PrepareForCreate and
// the finalize strategy, storage/storage.go Delete and
// ShouldDeleteNamespaceDuringUpdate).
func TestNamespaces(t *testing.T) {
	const (
		active      = `{"metadata":{"name":"ns"},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Active"}}`
		terminating = `{"metadata":{"name":"ns","deletionTimestamp":"2026-01-02T03:00:00Z"},"spec":{"finalizers":["kubernetes"]},"status":{"phase":"Terminating"}}`
		emptied     = `{"metadata":{"name":"ns","deletionTimestamp":"2026-01-02T03:00:00Z"},"spec":{},"status":{"phase":"Terminating"}}`
	)
	uid := types.UID("other")
	tests := []struct {
		name    string
		old     string // the stored namespace ("" none)
		verb    Verb
		sub     string
		body    string
		opts    metav1.DeleteOptions
		code    int32 // of the error; 0 for a success
		message string
		want    Event
		check   func(t *testing.T, res Result)
	}{
		{name: "namespace create - Active with the kubernetes finalizer - pass", verb: Create,
			body: `{"metadata":{"name":"ns"},"spec":{"finalizers":["x"]},"status":{"phase":"Terminating"}}`, want: Added,
			check: func(t *testing.T, res Result) {
				wantPhase(t, res.Stored, "Active")
				wantSpecFinalizers(t, res.Stored, "x", "kubernetes")
			}},
		{name: "namespace create - kubernetes finalizer not doubled - pass", verb: Create,
			body: `{"metadata":{"name":"ns"},"spec":{"finalizers":["kubernetes"]}}`, want: Added,
			check: func(t *testing.T, res Result) { wantSpecFinalizers(t, res.Stored, "kubernetes") }},
		{name: "namespace delete - active one marked Terminating - pass", old: active, verb: Delete, want: Modified,
			check: func(t *testing.T, res Result) {
				if res.Code != 200 || res.Stored.GetDeletionTimestamp() == nil || !res.Stored.GetDeletionTimestamp().Time.Equal(testNow) {
					t.Errorf("got code %d deletionTimestamp %v, want 200 %v", res.Code, res.Stored.GetDeletionTimestamp(), testNow)
				}
				wantPhase(t, res.Answer, "Terminating")
				wantSpecFinalizers(t, res.Stored, "kubernetes")
			}},
		{name: "namespace delete - terminating one with spec finalizers answered as stored - pass", old: terminating, verb: Delete, want: None,
			check: func(t *testing.T, res Result) {
				if res.Code != 200 || res.Answer.GetResourceVersion() != "5" {
					t.Errorf("got code %d rv %q, want 200 5", res.Code, res.Answer.GetResourceVersion())
				}
			}},
		{name: "namespace delete - terminating one without finalizers deleted - pass", old: emptied, verb: Delete, want: Deleted,
			check: func(t *testing.T, res Result) { wantPhase(t, res.Answer, "Terminating") }},
		{name: "namespace delete - uid precondition - fail", old: active, verb: Delete, opts: metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}},
			code: 409, message: `Operation cannot be fulfilled on namespaces "ns": Precondition failed: UID in precondition: other, UID in object meta: uid-old`},
		{name: "namespace finalize - emptied on a terminating one deletes it - pass", old: terminating, verb: Update, sub: "finalize",
			body: `{"metadata":{"name":"ns"},"spec":{"finalizers":[]}}`, want: Deleted},
		{name: "namespace finalize - only spec and metadata taken, status kept - pass", old: active, verb: Update, sub: "finalize",
			body: `{"metadata":{"name":"ns","labels":{"a":"b"}},"spec":{"finalizers":["x"]},"status":{"phase":"Terminating"}}`, want: Modified,
			check: func(t *testing.T, res Result) {
				wantPhase(t, res.Stored, "Active")
				wantSpecFinalizers(t, res.Stored, "x")
				if res.Stored.GetLabels()["a"] != "b" {
					t.Errorf("got labels %v, want a=b", res.Stored.GetLabels())
				}
			}},
		{name: "namespace delete collection - no route - fail", old: active, verb: DeleteCollection, code: 405},
		{name: "namespace finalize - patch - fail", old: active, verb: Patch, sub: "finalize", body: `{}`, code: 405},
		{name: "namespace update - spec finalizers kept, not deleted - pass", old: terminating, verb: Update,
			body: `{"metadata":{"name":"ns","labels":{"a":"b"}},"spec":{"finalizers":[]}}`, want: Modified,
			check: func(t *testing.T, res Result) { wantSpecFinalizers(t, res.Stored, "kubernetes") }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mapState{}
			if tt.old != "" {
				st["ns"] = stored(t, namespaces, "5", "uid-old", tt.old)
			}
			req := Request{Verb: tt.verb, Kind: namespaces, Subresource: tt.sub, Delete: tt.opts}
			if tt.verb != Create && tt.verb != DeleteCollection {
				req.Name = "ns"
			}
			if tt.body != "" {
				req.Body = body(t, obj(t, namespaces, tt.body))
				req.ContentType = "application/json"
			}
			if tt.verb == Patch {
				req.Body, req.PatchType = []byte(tt.body), "application/merge-patch+json"
			}
			res, err := Do(st, testEnv(), req)
			if tt.code != 0 {
				wantStatus(t, err, tt.code, string(reasonOf(tt.code)), tt.message)
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if res.Event != tt.want {
				t.Errorf("got event %q, want %q", res.Event, tt.want)
			}
			if tt.check != nil {
				tt.check(t, res)
			}
		})
	}
}

// reasonOf is the reason of the tests' error codes.
func reasonOf(code int32) metav1.StatusReason {
	if code == 405 {
		return metav1.StatusReasonMethodNotAllowed
	}
	return metav1.StatusReasonConflict
}

// wantPhase checks obj's status.phase.
func wantPhase(t *testing.T, obj *unstructured.Unstructured, want string) {
	t.Helper()
	if got, _, _ := unstructured.NestedString(obj.Object, "status", "phase"); got != want {
		t.Errorf("phase: got %q, want %q", got, want)
	}
}

// wantSpecFinalizers checks obj's spec.finalizers.
func wantSpecFinalizers(t *testing.T, obj *unstructured.Unstructured, want ...string) {
	t.Helper()
	got := specFinalizers(obj)
	if len(got) != len(want) {
		t.Errorf("spec.finalizers: got %v, want %v", got, want)
		return
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("spec.finalizers: got %v, want %v", got, want)
		}
	}
}

// TestNamespaceLifecycle checks the NamespaceLifecycle admission of
// creates (k8s.io/apiserver v0.37.2 pkg/admission/plugin/namespace/
// lifecycle Lifecycle.Admit): Forbidden in a terminating namespace, with
// its cause; let through in an active or unknown one, or with no lookup.
func TestNamespaceLifecycle(t *testing.T) {
	lookup := func(t *testing.T) func(string) (*unstructured.Unstructured, bool) {
		return mapState{
			"live": stored(t, namespaces, "3", "u1", `{"metadata":{"name":"live"},"status":{"phase":"Active"}}`),
			"gone": stored(t, namespaces, "4", "u2", `{"metadata":{"name":"gone","deletionTimestamp":"2026-01-02T03:00:00Z"},"status":{"phase":"Terminating"}}`),
		}.Get
	}
	tests := []struct {
		name, ns   string
		kind       Kind
		sub        string
		noLookup   bool
		wantDenied bool
	}{
		{name: "namespace lifecycle - create in a terminating namespace - fail", ns: "gone", kind: configmaps, wantDenied: true},
		{name: "namespace lifecycle - binding in a terminating namespace - fail", ns: "gone", kind: pods, sub: "binding", wantDenied: true},
		{name: "namespace lifecycle - create in an active namespace - pass", ns: "live", kind: configmaps},
		{name: "namespace lifecycle - create in an unknown namespace - pass", ns: "other", kind: configmaps},
		{name: "namespace lifecycle - no lookup - pass", ns: "gone", kind: configmaps, noLookup: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := testEnv()
			if !tt.noLookup {
				env.Namespace = lookup(t)
			}
			req := Request{Verb: Create, Kind: tt.kind, Namespace: tt.ns, Subresource: tt.sub, ContentType: "application/json",
				Body: body(t, obj(t, tt.kind, `{"metadata":{"name":"c"}}`))}
			if tt.sub == "binding" {
				req.Name = "p"
				req.Body = []byte(`{"apiVersion":"v1","kind":"Binding","metadata":{"name":"p"},"target":{"kind":"Node","name":"n"}}`)
			}
			_, err := Do(mapState{}, env, req)
			if !tt.wantDenied {
				if err != nil && apierrors.IsForbidden(err) {
					t.Errorf("got %v, want no Forbidden", err)
				}
				return
			}
			name := "c"
			if tt.sub == "binding" {
				name = "p"
			}
			wantStatus(t, err, 403, "Forbidden", tt.kind.Resource.Resource+` "`+name+`" is forbidden: unable to create new content in namespace gone because it is being terminated`)
			se, _ := err.(*apierrors.StatusError)
			if se == nil || se.ErrStatus.Details == nil || len(se.ErrStatus.Details.Causes) != 1 || se.ErrStatus.Details.Causes[0].Type != "NamespaceTerminating" {
				t.Errorf("got details %+v, want one NamespaceTerminating cause", se)
			}
		})
	}
}
