package writes

import (
	"encoding/json"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/history"
)

// builtinKind is a built-in kind with a status subresource.
func builtinKind(group, resource, kind string) Kind {
	return Kind{Resource: history.Resource{Group: group, Version: "v1", Resource: resource, Kind: kind, Namespaced: true}, Builtin: true, Status: true}
}

// nested is {"a":{"b":v}} for path a.b.
func nested(path []string, v any) map[string]any {
	m := map[string]any{path[len(path)-1]: v}
	for i := len(path) - 2; i >= 0; i-- {
		m = map[string]any{path[i]: m}
	}
	return m
}

// TestBuiltinStatus writes the status subresource and the main resource
// of the built-in kinds the cluster's controllers write. It checks the
// rules of their strategies in k8s.io/kubernetes v1.37.2 pkg/registry. A
// status write keeps the spec (status strategies' PrepareForUpdate: Spec
// from old) and the generation. A main write keeps the status. It bumps
// the generation on a spec change (PrepareForUpdate; a PVC has none).
func TestBuiltinStatus(t *testing.T) {
	kinds := []struct {
		kind             Kind
		spec, status     string // a field of each, as a path
		a, b             any    // its values before and after
		gen, wantSpecGen int64  // the stored generation, and after a spec change
	}{
		{builtinKind("", "pods", "Pod"), "schedulerName", "message", "a", "b", 1, 2},
		{builtinKind("apps", "statefulsets", "StatefulSet"), "serviceName", "currentRevision", "a", "b", 1, 2},
		{builtinKind("apps", "deployments", "Deployment"), "minReadySeconds", "collisionCount", int64(1), int64(2), 1, 2},
		{builtinKind("apps", "replicasets", "ReplicaSet"), "minReadySeconds", "fullyLabeledReplicas", int64(1), int64(2), 1, 2},
		{builtinKind("batch", "jobs", "Job"), "parallelism", "active", int64(1), int64(2), 1, 2},
		{builtinKind("", "persistentvolumeclaims", "PersistentVolumeClaim"), "volumeName", "phase", "a", "b", 0, 0},
	}
	for _, k := range kinds {
		object := func(spec, status any, gen int64) *unstructured.Unstructured {
			m := map[string]any{"metadata": map[string]any{"name": "o", "namespace": "ns"}, "spec": nested([]string{k.spec}, spec), "status": nested([]string{k.status}, status)}
			if gen > 0 {
				m["metadata"].(map[string]any)["generation"] = gen
			}
			js, err := json.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			return obj(t, k.kind, string(js))
		}
		old, err := throughType(k.kind, object(k.a, k.a, k.gen)) // stored as kube-apiserver encodes it
		if err != nil {
			t.Fatal(err)
		}
		old.SetResourceVersion("5")
		old.SetUID("uid-o")
		st := mapState{"ns/o": old}
		cases := []struct {
			name               string
			sub                string
			spec, status       any
			wantEvent          Event
			wantSpec, wantStat any
			wantGen            int64
		}{
			{name: "status write - spec and status changed - status only - pass", sub: "status", spec: k.b, status: k.b,
				wantEvent: Modified, wantSpec: k.a, wantStat: k.b, wantGen: k.gen},
			{name: "main write - spec and status changed - spec only, generation bumped - pass", spec: k.b, status: k.b,
				wantEvent: Modified, wantSpec: k.b, wantStat: k.a, wantGen: k.wantSpecGen},
			{name: "main write - status changed only - nothing stored - pass", spec: k.a, status: k.b,
				wantEvent: None, wantSpec: k.a, wantStat: k.a, wantGen: k.gen},
		}
		for _, tc := range cases {
			t.Run(k.kind.Resource.Resource+" - "+tc.name, func(t *testing.T) {
				res, err := Do(st, testEnv(), Request{Verb: Update, Kind: k.kind, Namespace: "ns", Name: "o", Subresource: tc.sub,
					Body: body(t, object(tc.spec, tc.status, 0)), ContentType: "application/json"})
				if err != nil {
					t.Fatalf("got error %v, want none", err)
				}
				out := res.Stored
				if out == nil {
					out = res.Answer
				}
				spec, _, _ := unstructured.NestedFieldNoCopy(out.Object, "spec", k.spec)
				stat, _, _ := unstructured.NestedFieldNoCopy(out.Object, "status", k.status)
				if res.Event != tc.wantEvent || fmt.Sprint(spec) != fmt.Sprint(tc.wantSpec) || fmt.Sprint(stat) != fmt.Sprint(tc.wantStat) || out.GetGeneration() != tc.wantGen {
					t.Errorf("got %q spec %v status %v generation %d, want %q %v %v %d", res.Event, spec, stat, out.GetGeneration(), tc.wantEvent, tc.wantSpec, tc.wantStat, tc.wantGen)
				}
			})
		}
	}
}

// TestBuiltinStatusMetadata checks the metadata rules of the built-in
// status strategies (k8s.io/kubernetes v1.37.2 pkg/registry). A
// deployment's status write keeps its labels; a statefulset's takes the
// request's. A pod's keeps its ownerReferences, and the qosClass and
// observedGenerations it leaves unset.
func TestBuiltinStatusMetadata(t *testing.T) {
	const oldMeta = `"labels":{"l":"old"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"u1"}]`
	const newMeta = `"labels":{"l":"new"},"ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"other","uid":"u2"}]`
	tests := []struct {
		name      string
		kind      Kind
		oldStatus string
		newStatus string
		wantLabel string
		wantOwner string
		check     func(t *testing.T, out *unstructured.Unstructured)
	}{
		{name: "status metadata - deployment - labels kept - pass", kind: builtinKind("apps", "deployments", "Deployment"),
			oldStatus: `{"replicas":1}`, newStatus: `{"replicas":2}`, wantLabel: "old", wantOwner: "other"},
		{name: "status metadata - statefulset - labels the request's - pass", kind: builtinKind("apps", "statefulsets", "StatefulSet"),
			oldStatus: `{"replicas":1}`, newStatus: `{"replicas":2}`, wantLabel: "new", wantOwner: "other"},
		{name: "status metadata - pod - ownerReferences, qosClass and observedGenerations kept - pass", kind: builtinKind("", "pods", "Pod"),
			oldStatus: `{"qosClass":"BestEffort","observedGeneration":3,"conditions":[{"type":"Ready","status":"False","observedGeneration":3}]}`,
			newStatus: `{"phase":"Running","conditions":[{"type":"Ready","status":"True"}]}`, wantLabel: "new", wantOwner: "rs",
			check: func(t *testing.T, out *unstructured.Unstructured) {
				q, _, _ := unstructured.NestedString(out.Object, "status", "qosClass")
				g, _, _ := unstructured.NestedInt64(out.Object, "status", "observedGeneration")
				conds, _, _ := unstructured.NestedSlice(out.Object, "status", "conditions")
				cg := any(nil)
				if len(conds) == 1 {
					cg = conds[0].(map[string]any)["observedGeneration"]
				}
				if q != "BestEffort" || g != 3 || fmt.Sprint(cg) != "3" {
					t.Errorf("got qosClass %q observedGeneration %d condition's %v, want BestEffort 3 3", q, g, cg)
				}
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st := mapState{"ns/o": stored(t, tc.kind, "5", "uid-o", `{"metadata":{"name":"o","namespace":"ns",`+oldMeta+`},"status":`+tc.oldStatus+`}`)}
			req := obj(t, tc.kind, `{"metadata":{"name":"o","namespace":"ns",`+newMeta+`},"status":`+tc.newStatus+`}`)
			res, err := Do(st, testEnv(), Request{Verb: Update, Kind: tc.kind, Namespace: "ns", Name: "o", Subresource: "status", Body: body(t, req), ContentType: "application/json"})
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			owners := res.Stored.GetOwnerReferences()
			if res.Stored.GetLabels()["l"] != tc.wantLabel || len(owners) != 1 || owners[0].Name != tc.wantOwner {
				t.Errorf("got labels %v owners %v, want l=%s owner %s", res.Stored.GetLabels(), owners, tc.wantLabel, tc.wantOwner)
			}
			if tc.check != nil {
				tc.check(t, res.Stored)
			}
		})
	}
}
