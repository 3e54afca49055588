package writes

import (
	"encoding/json"
	"slices"
	"testing"
)

// TestRebase checks a recorded change replayed onto an object the target
// changed. The target's fields survive, the recorded writer wins where
// both wrote, and the metadata rules hold.
func TestRebase(t *testing.T) {
	cases := []struct {
		name               string
		kind               Kind
		before, after, cur string
		event              Event
		want               map[string]string // JSON of a top-level field of the result, by field
		wantRV             string
		wantGen            int64
		wantManagers       []string
	}{
		{name: "rebase - configmap: recorded data change next to the target's annotation - pass", kind: configmaps,
			before: `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"5"},"data":{"a":"1"}}`,
			after:  `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"9"},"data":{"a":"2","b":"3"}}`,
			cur:    `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"7","annotations":{"mine":"x"}},"data":{"a":"1"}}`,
			event:  Modified, wantRV: "9",
			want: map[string]string{"data": `{"a":"2","b":"3"}`, "metadata.annotations": `{"mine":"x"}`}},
		{name: "rebase - configmap: both wrote one key, the recorded writer wins - pass", kind: configmaps,
			before: `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"5"},"data":{"a":"1","t":"1"}}`,
			after:  `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"9"},"data":{"a":"other","t":"1"}}`,
			cur:    `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"7"},"data":{"a":"mine","t":"2"}}`,
			event:  Modified, wantRV: "9",
			want: map[string]string{"data": `{"a":"other","t":"2"}`}},
		{name: "rebase - configmap: the recorded key removal removes it - pass", kind: configmaps,
			before: `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"5"},"data":{"a":"1","b":"2"}}`,
			after:  `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"9"},"data":{"a":"1"}}`,
			cur:    `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"7"},"data":{"a":"1","b":"2","c":"3"}}`,
			event:  Modified, wantRV: "9",
			want: map[string]string{"data": `{"a":"1","c":"3"}`}},
		{name: "rebase - configmap: the change the target already made is no write - pass", kind: configmaps,
			before: `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"5"},"data":{"a":"1"}}`,
			after:  `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"9"},"data":{"a":"2"}}`,
			cur:    `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"7"},"data":{"a":"2"}}`,
			event:  None, wantRV: "7",
			want: map[string]string{"data": `{"a":"2"}`}},
		// strategic merge: the recorded writer's condition merges by type with the target's.
		{name: "rebase - deployment: recorded spec change bumps the target's generation, conditions merge by type - pass", kind: deployments,
			before: `{"metadata":{"name":"d","namespace":"ns","resourceVersion":"5","generation":2},"spec":{"replicas":1},"status":{"conditions":[{"type":"Available","status":"False"}]}}`,
			after:  `{"metadata":{"name":"d","namespace":"ns","resourceVersion":"9","generation":3},"spec":{"replicas":4},"status":{"conditions":[{"type":"Available","status":"True"}]}}`,
			cur:    `{"metadata":{"name":"d","namespace":"ns","resourceVersion":"7","generation":3},"spec":{"replicas":1,"paused":true},"status":{"conditions":[{"type":"Available","status":"False"},{"type":"Progressing","status":"True"}]}}`,
			event:  Modified, wantRV: "9", wantGen: 4,
			want: map[string]string{"spec": `{"paused":true,"replicas":4}`,
				"status": `{"conditions":[{"status":"True","type":"Available"},{"status":"True","type":"Progressing"}]}`}},
		{name: "rebase - widget: recorded spec next to the target's status (merge patch) - pass", kind: widgets,
			before: `{"metadata":{"name":"w","namespace":"ns","resourceVersion":"5","generation":1},"spec":{"x":1}}`,
			after:  `{"metadata":{"name":"w","namespace":"ns","resourceVersion":"9","generation":2},"spec":{"x":2}}`,
			cur:    `{"metadata":{"name":"w","namespace":"ns","resourceVersion":"7","generation":1},"spec":{"x":1},"status":{"seen":1}}`,
			event:  Modified, wantRV: "9", wantGen: 2,
			want: map[string]string{"spec": `{"x":2}`, "status": `{"seen":1}`}},
		{name: "rebase - widget: recorded finalizer removal on an object the target deletes - pass", kind: widgets,
			before: `{"metadata":{"name":"w","namespace":"ns","resourceVersion":"5","finalizers":["f"]}}`,
			after:  `{"metadata":{"name":"w","namespace":"ns","resourceVersion":"9"}}`,
			cur:    `{"metadata":{"name":"w","namespace":"ns","resourceVersion":"7","finalizers":["f"],"deletionTimestamp":"2026-01-02T03:04:05Z"}}`,
			event:  Deleted, wantRV: "9"},
		{name: "rebase - configmap: the recorded writer's manager entry next to the target's - pass", kind: configmaps,
			before: `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"5","managedFields":[{"manager":"other","operation":"Update","apiVersion":"v1"}]},"data":{"a":"1"}}`,
			after:  `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"9","managedFields":[{"manager":"other","operation":"Update","apiVersion":"v1","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}]},"data":{"a":"2"}}`,
			cur:    `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"7","managedFields":[{"manager":"other","operation":"Update","apiVersion":"v1"},{"manager":"me","operation":"Update","apiVersion":"v1"}],"annotations":{"m":"1"}},"data":{"a":"1"}}`,
			event:  Modified, wantRV: "9", wantManagers: []string{"me", "other/fieldsV1"}}, // kube-apiserver's order: "me" before "other"
		// kube-apiserver stores managedFields sorted (operation, time in seconds, manager, apiVersion, subresource:
		// k8s.io/apimachinery/pkg/util/managedfields/internal/managedfields.go sortEncodedManagedFields)
		{name: "rebase - configmap: a recorded writer's new entry among the target's, in kube-apiserver's order - pass", kind: configmaps,
			before: `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"5","managedFields":[{"manager":"other","operation":"Update","apiVersion":"v1","time":"2026-12-02T02:07:43Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}]},"data":{"a":"1"}}`,
			after:  `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"9","managedFields":[{"manager":"other","operation":"Update","apiVersion":"v1","time":"2026-12-02T02:07:43Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}},{"manager":"ctl","operation":"Update","apiVersion":"v1","time":"2026-12-02T02:07:43Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:b":{}}}}]},"data":{"a":"1","b":"2"}}`,
			cur:    `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"7","managedFields":[{"manager":"me","operation":"Update","apiVersion":"v1","time":"2000-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:m":{}}}}},{"manager":"other","operation":"Update","apiVersion":"v1","time":"2026-12-02T02:07:43Z","fieldsType":"FieldsV1","fieldsV1":{"f:data":{"f:a":{}}}}],"annotations":{"m":"1"}},"data":{"a":"1"}}`,
			event:  Modified, wantRV: "9", wantManagers: []string{"me/fieldsV1", "ctl/fieldsV1", "other/fieldsV1"},
			want: map[string]string{"data": `{"a":"1","b":"2"}`}},
		// structured-merge-diff's Updater.Update: an update's manager owns the fields it changed; one that changes
		// none gets no entry, the object is unchanged, and kube-apiserver stores nothing
		{name: "rebase - configmap: the recorded writer's update sets what the target set already - no write, no entry - pass", kind: configmaps,
			before: `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"5"},"data":{"a":"1"}}`,
			after:  `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"9","annotations":{"m":"1"},"managedFields":[{"manager":"ctl","operation":"Update","apiVersion":"v1","time":"2026-12-02T02:07:43Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:m":{}}}}}]},"data":{"a":"1"}}`,
			cur:    `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"7","annotations":{"m":"1"},"managedFields":[{"manager":"me","operation":"Update","apiVersion":"v1","time":"2000-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:m":{}}}}}]},"data":{"a":"1"}}`,
			event:  None, wantRV: "7", wantManagers: []string{"me/fieldsV1"}},
		// an apply takes ownership of what it applies, changed or not: its entry joins
		{name: "rebase - configmap: the recorded writer's apply of what the target set already - its entry joins - pass", kind: configmaps,
			before: `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"5"},"data":{"a":"1"}}`,
			after:  `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"9","annotations":{"m":"1"},"managedFields":[{"manager":"ctl","operation":"Apply","apiVersion":"v1","time":"2026-12-02T02:07:43Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{"f:m":{}}}}}]},"data":{"a":"1"}}`,
			cur:    `{"metadata":{"name":"c","namespace":"ns","resourceVersion":"7","annotations":{"m":"1"},"managedFields":[{"manager":"me","operation":"Update","apiVersion":"v1","time":"2000-01-01T00:00:00Z","fieldsType":"FieldsV1","fieldsV1":{"f:metadata":{"f:annotations":{".":{},"f:m":{}}}}}]},"data":{"a":"1"}}`,
			event:  Modified, wantRV: "9", wantManagers: []string{"ctl/fieldsV1", "me/fieldsV1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ev, err := Rebase(c.kind, obj(t, c.kind, c.before), obj(t, c.kind, c.after), obj(t, c.kind, c.cur))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			if ev != c.event {
				t.Errorf("got event %q, want %q", ev, c.event)
			}
			if rv := got.GetResourceVersion(); rv != c.wantRV {
				t.Errorf("got resourceVersion %q, want %q", rv, c.wantRV)
			}
			if gen := got.GetGeneration(); gen != c.wantGen {
				t.Errorf("got generation %d, want %d", gen, c.wantGen)
			}
			for field, want := range c.want {
				var v any
				if field == "metadata.annotations" {
					v = got.GetAnnotations()
				} else {
					v = got.Object[field]
				}
				b, _ := json.Marshal(v)
				if string(b) != want {
					t.Errorf("got %s %s, want %s", field, b, want)
				}
			}
			if c.wantManagers != nil {
				var names []string
				for _, e := range got.GetManagedFields() {
					n := e.Manager
					if e.FieldsV1 != nil {
						n += "/fieldsV1"
					}
					names = append(names, n)
				}
				if !slices.Equal(names, c.wantManagers) {
					t.Errorf("got managers %v, want %v", names, c.wantManagers)
				}
			}
		})
	}
}
