package writes

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/history"
)

// pods is the core pods resource: the one with a binding subresource.
var pods = Kind{Resource: history.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}, Builtin: true, Status: true}

// TestBind checks the pods/binding rules of kube-apiserver's BindingREST
// (k8s.io/kubernetes v1.37.2 pkg/registry/core/pod/storage/storage.go:
// Create, setPodNodeAndMetadata, assignPod).
func TestBind(t *testing.T) {
	st := mapState{
		"ns/p": stored(t, pods, "5", "uid-p", `{"metadata":{"name":"p","namespace":"ns","generation":1,"annotations":{"a":"old","pod.beta.kubernetes.io/init-containers":"[]"}},`+
			`"spec":{"containers":[{"name":"c","image":"i"}]},"status":{"phase":"Pending","nominatedNodeName":"n0","conditions":[{"type":"PodScheduled","status":"False","reason":"Unschedulable"}]}}`),
		"ns/bound": stored(t, pods, "6", "uid-b", `{"metadata":{"name":"bound","namespace":"ns"},"spec":{"nodeName":"n1","containers":[{"name":"c","image":"i"}]}}`),
		"ns/going": stored(t, pods, "7", "uid-g", `{"metadata":{"name":"going","namespace":"ns","deletionTimestamp":"2026-01-01T00:00:00Z","finalizers":["f"]},"spec":{"containers":[{"name":"c","image":"i"}]}}`),
		"ns/gated": stored(t, pods, "8", "uid-q", `{"metadata":{"name":"gated","namespace":"ns"},"spec":{"schedulingGates":[{"name":"g"}],"containers":[{"name":"c","image":"i"}]}}`),
	}
	binding := func(name, extra string) string {
		return `{"apiVersion":"v1","kind":"Binding","metadata":{"name":"` + name + `"` + extra + `},"target":{"apiVersion":"v1","kind":"Node","name":"node-1"}}`
	}
	cases := []struct {
		name    string
		kind    Kind
		pod     string
		body    string
		dryRun  bool
		verb    Verb
		code    int32
		reason  string
		message string
		check   func(t *testing.T, res Result)
	}{
		{name: "bind - unassigned pod - assigned, Status Success 201 - pass", pod: "p", body: binding("p", `,"annotations":{"a":"new","b":"x"},"labels":{"zone":"z1"}`),
			check: func(t *testing.T, res Result) {
				if res.Code != 201 || res.Event != Modified || res.Stored.GetResourceVersion() != "101" {
					t.Fatalf("got %d %q at %q, want 201 MODIFIED at 101", res.Code, res.Event, res.Stored.GetResourceVersion())
				}
				if s, _, _ := unstructured.NestedString(res.Answer.Object, "status"); s != "Success" || res.Answer.GetKind() != "Status" {
					t.Errorf("answer: got %s %q, want a Status Success", res.Answer.GetKind(), s)
				}
				if c, _, _ := unstructured.NestedInt64(res.Answer.Object, "code"); c != 201 {
					t.Errorf("answer code: got %d, want 201 (handlers/create.go)", c)
				}
				if n, _, _ := unstructured.NestedString(res.Stored.Object, "spec", "nodeName"); n != "node-1" {
					t.Errorf("nodeName: got %q, want node-1", n)
				}
				if n, ok, _ := unstructured.NestedString(res.Stored.Object, "status", "nominatedNodeName"); ok {
					t.Errorf("nominatedNodeName: got %q, want cleared (ClearingNominatedNodeNameAfterBinding)", n)
				}
				if a := res.Stored.GetAnnotations(); len(a) != 2 || a["a"] != "new" || a["b"] != "x" {
					t.Errorf("annotations: got %v, want the binding's merged in, init-container ones dropped", a)
				}
				if l := res.Stored.GetLabels(); l["zone"] != "z1" {
					t.Errorf("labels: got %v, want zone=z1 (PodTopologyLabelsAdmission)", l)
				}
				if g := res.Stored.GetGeneration(); g != 1 {
					t.Errorf("generation: got %d, want 1 (a binding bypasses the pod strategy)", g)
				}
				conds, _, _ := unstructured.NestedSlice(res.Stored.Object, "status", "conditions")
				c, _ := conds[0].(map[string]any)
				if len(conds) != 1 || c["type"] != "PodScheduled" || c["status"] != "True" || c["reason"] != nil || c["lastTransitionTime"] != "2026-01-02T03:04:05Z" {
					t.Errorf("conditions: got %v, want one PodScheduled True at the write's time, no reason (UpdatePodCondition)", conds)
				}
			}},
		{name: "bind - dry run - nothing stored - pass", pod: "p", body: binding("p", ""), dryRun: true,
			check: func(t *testing.T, res Result) {
				if res.Code != 201 || res.Event != None || res.Stored != nil {
					t.Errorf("got %d %q %v, want 201 and nothing stored", res.Code, res.Event, res.Stored)
				}
			}},
		{name: "bind - already assigned - fail", pod: "bound", body: binding("bound", ""),
			code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on pods/binding "bound": pod bound is already assigned to node "n1"`},
		{name: "bind - being deleted - fail", pod: "going", body: binding("going", ""),
			code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on pods/binding "going": pod going is being deleted, cannot be assigned to a host`},
		{name: "bind - scheduling gates - fail", pod: "gated", body: binding("gated", ""),
			code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on pods/binding "gated": pod gated has non-empty .spec.schedulingGates`},
		{name: "bind - absent pod - fail", pod: "gone", body: binding("gone", ""),
			code: 404, reason: "NotFound", message: `pods "gone" not found`},
		{name: "bind - name differs from the URL's - fail", pod: "p", body: binding("q", ""),
			code: 400, reason: "BadRequest", message: "name in URL does not match name in Binding object"},
		{name: "bind - uid precondition - fail", pod: "p", body: binding("p", `,"uid":"other"`),
			code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on pods "p": StorageError: invalid object, Code: 4, Key: /registry/pods/ns/p, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: uid-p`},
		{name: "bind - resourceVersion precondition - fail", pod: "p", body: binding("p", `,"resourceVersion":"4"`),
			code: 409, reason: "Conflict", message: `Operation cannot be fulfilled on pods "p": StorageError: invalid object, Code: 4, Key: /registry/pods/ns/p, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: ResourceVersion in precondition: 4, ResourceVersion in object meta: 5`},
		{name: "bind - no target name - fail", pod: "p", body: `{"metadata":{"name":"p"},"target":{"kind":"Node"}}`,
			code: 500, reason: "", message: "target.name: Required value"},
		{name: "bind - target not a node - fail", pod: "p", body: `{"metadata":{"name":"p"},"target":{"kind":"Pod","name":"x"}}`,
			code: 500, reason: "", message: `target.kind: Unsupported value: "Pod": supported values: "Node", "<empty>"`},
		{name: "bind - a configmap - fail", kind: configmaps, pod: "c", body: binding("c", ""), code: 405, reason: "MethodNotAllowed"},
		{name: "bind - an update of the binding - fail", pod: "p", body: binding("p", ""), verb: Update, code: 405, reason: "MethodNotAllowed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			k := tc.kind
			if k.Resource.Resource == "" {
				k = pods
			}
			verb := Create
			if tc.verb != Create {
				verb = tc.verb
			}
			res, err := Do(st, testEnv(), Request{Verb: verb, Kind: k, Namespace: "ns", Name: tc.pod, Subresource: "binding", Body: []byte(tc.body), DryRun: tc.dryRun})
			verify(t, res, err, tc.code, tc.reason, tc.message, tc.check)
		})
	}
}
