package writes

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/types"
)

// TestWritesLeaveStateAsItWas checks that no write changes the objects
// State holds: a write's steps change its own copies in place, and the
// field manager is handed the stored object itself as the live one.
func TestWritesLeaveStateAsItWas(t *testing.T) {
	const managed = `"managedFields":[{"manager":"kubectl","operation":"Update","apiVersion":"v1","time":"2026-01-02T03:04:05Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:k":{}}}}]`
	newState := func() mapState {
		return mapState{
			"ns/c": stored(t, configmaps, "5", "uid-c", `{"metadata":{"name":"c","namespace":"ns","labels":{"l":"1"},`+managed+`},"data":{"k":"v"}}`),
			"ns/d": stored(t, deployments, "6", "uid-d", `{"metadata":{"name":"d","namespace":"ns","generation":2},"spec":{"replicas":1},"status":{"replicas":1}}`),
			"ns/w": stored(t, widgets, "7", "uid-w", `{"metadata":{"name":"w","namespace":"ns","generation":3},"spec":{"x":1},"status":{"s":1}}`),
		}
	}
	cases := []struct {
		name string
		req  Request
	}{
		{name: "state kept - configmap update - pass", req: Request{Verb: Update, Kind: configmaps, Namespace: "ns", Name: "c",
			Body: []byte(`{"kind":"ConfigMap","apiVersion":"v1","metadata":{"name":"c","labels":{"l":"2"}},"data":{"k":"w"}}`), ContentType: "application/json"}},
		{name: "state kept - configmap merge patch - pass", req: Request{Verb: Patch, Kind: configmaps, Namespace: "ns", Name: "c",
			PatchType: types.MergePatchType, Body: []byte(`{"metadata":{"labels":{"m":"1"}},"data":{"k":"p"}}`)}},
		{name: "state kept - configmap apply - pass", req: Request{Verb: Patch, Kind: configmaps, Namespace: "ns", Name: "c", FieldManager: "me",
			PatchType: types.ApplyYAMLPatchType, Body: []byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":{"a":"b"}}`)}},
		{name: "state kept - deployment status update - pass", req: Request{Verb: Update, Kind: deployments, Namespace: "ns", Name: "d", Subresource: "status",
			Body: []byte(`{"kind":"Deployment","apiVersion":"apps/v1","metadata":{"name":"d","resourceVersion":"6"},"status":{"replicas":2}}`), ContentType: "application/json"}},
		{name: "state kept - widget update - pass", req: Request{Verb: Update, Kind: widgets, Namespace: "ns", Name: "w",
			Body: []byte(`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","resourceVersion":"7"},"spec":{"x":2}}`), ContentType: "application/json"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			st, before := newState(), newState()
			res, err := Do(st, testEnv(), c.req)
			if err != nil || res.Event != Modified {
				t.Fatalf("got %v, event %q; want the write stored", err, res.Event)
			}
			for key, want := range before {
				if got := st[key]; !equality.Semantic.DeepEqual(got.Object, want.Object) {
					t.Errorf("state %s: got %v after the write, want it as it was: %v", key, got.Object, want.Object)
				}
			}
		})
	}
}
