package replayer

import (
	"encoding/json"
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

// TestListBodyItemKinds renders one list page of a built-in kind and one
// of a custom resource. The typed list of kube-apiserver leaves its items'
// kind and apiVersion out. The unstructured list of apiextensions keeps
// them for a custom resource (as recorded in examples/widgets' cassettes).
func TestListBodyItemKinds(t *testing.T) {
	tests := []struct {
		name             string
		res              history.Resource
		object           string
		kind, apiVersion string
	}{
		{name: "list body - configmaps (built-in) - items without kind - pass",
			res:    history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true},
			object: `{"metadata":{"name":"a","namespace":"ns","uid":"u1","resourceVersion":"5"},"data":{"k":"v"}}`},
		{name: "list body - widgets (custom resource) - items with kind and apiVersion - pass",
			res:    history.Resource{Group: "example.lwreplay.dev", Version: "v1", Resource: "widgets", Kind: "Widget", Namespaced: true},
			object: `{"metadata":{"name":"a","namespace":"ns","uid":"u1","resourceVersion":"5"},"spec":{"data":{"k":"v"}}}`,
			kind:   "Widget", apiVersion: "example.lwreplay.dev/v1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, _, _, err := history.ParseObject([]byte(tt.object))
			if err != nil {
				t.Fatalf("ParseObject: got %v, want nil", err)
			}
			body := listBody(tt.res, "5", page{items: []*history.Object{o}})
			var list struct {
				Kind  string `json:"kind"`
				Items []struct {
					Kind       string `json:"kind"`
					APIVersion string `json:"apiVersion"`
				} `json:"items"`
			}
			if err := json.Unmarshal(body, &list); err != nil {
				t.Fatalf("unmarshal %s: got %v, want a list", body, err)
			}
			if len(list.Items) != 1 {
				t.Fatalf("items: got %d, want 1", len(list.Items))
			}
			if got := list.Items[0]; got.Kind != tt.kind || got.APIVersion != tt.apiVersion {
				t.Errorf("item kind, apiVersion: got %q, %q, want %q, %q", got.Kind, got.APIVersion, tt.kind, tt.apiVersion)
			}
			if want := tt.res.Kind + "List"; list.Kind != want {
				t.Errorf("list kind: got %q, want %q", list.Kind, want)
			}
		})
	}
}
