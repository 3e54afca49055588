package actors_test

import (
	"encoding/json"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// TestKCMMasksLeaveBugsSeen checks the masks kcmOptions adds hide only the
// fields they name. It takes the end state of a fault-free run of the real
// ReplicaSet controller, changes one of its pods as a broken controller
// would, and diffs it against the run's own under the campaign's masks:
// a changed node or IP is masked, a label, an image, a pod missing or one
// more are seen.
func TestKCMMasksLeaveBugsSeen(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs kube-controller-manager's controllers")
	}
	o := kcmOptions(t, "replicaset", "replicaset")
	obs := fuzz.FaultFreeRun(t, o)
	ref := oracle.FinalStateOf(obs.Served)
	pods := ref.Resources[podsRes.Name()]
	if pods == nil || len(pods.Objects) == 0 {
		t.Fatalf("fault-free run: got no pods at its end, want the ReplicaSet's")
	}
	key := slices.Sorted(maps.Keys(pods.Objects))[0]
	masks := oracle.DefaultMaskSet().Merge(oracle.MaskSet(o.Masks...))
	tests := []struct {
		name   string
		change func(pod map[string]any, objects map[string][]byte)
		seen   string // a word of the difference reported; "" when masked
	}{
		{name: "kcm masks - a pod bound to another node - masked - pass", change: func(pod map[string]any, _ map[string][]byte) {
			set(pod, "other-node", "spec", "nodeName")
			set(pod, "10.9.9.9", "status", "hostIP")
		}},
		{name: "kcm masks - a pod with another IP - masked - pass", change: func(pod map[string]any, _ map[string][]byte) {
			set(pod, "10.8.8.8", "status", "podIP")
		}},
		{name: "kcm masks - a pod with a label its controller did not set - seen - fail", seen: "labels", change: func(pod map[string]any, _ map[string][]byte) {
			set(pod, "yes", "metadata", "labels", "planted")
		}},
		{name: "kcm masks - a pod with another image - seen - fail", seen: "image", change: func(pod map[string]any, _ map[string][]byte) {
			containers := pod["spec"].(map[string]any)["containers"].([]any)
			containers[0].(map[string]any)["image"] = "planted:1"
		}},
		{name: "kcm masks - a pod missing - seen - fail", seen: "missing", change: func(_ map[string]any, objects map[string][]byte) {
			delete(objects, key)
		}},
		{name: "kcm masks - one pod more - seen - fail", seen: "extra", change: func(pod map[string]any, objects map[string][]byte) {
			objects[key+"-planted"] = mustJSON(t, pod)
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := oracle.FinalStateOf(obs.Served)
			objects := got.Resources[podsRes.Name()].Objects
			var pod map[string]any
			if err := json.Unmarshal(objects[key], &pod); err != nil {
				t.Fatal(err)
			}
			tc.change(pod, objects)
			if _, ok := objects[key]; ok {
				objects[key] = mustJSON(t, pod)
			}
			err := oracle.DiffFinalState(ref, got, masks)
			switch {
			case tc.seen == "" && err != nil:
				t.Errorf("diff: got %v, want none (masked)", err)
			case tc.seen != "" && (err == nil || !strings.Contains(err.Error(), tc.seen)):
				t.Errorf("diff: got %v, want one naming %q", err, tc.seen)
			}
		})
	}
}

// set sets the field at path in obj to v, making maps on the way.
func set(obj map[string]any, v any, path ...string) {
	for _, p := range path[:len(path)-1] {
		next, ok := obj[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			obj[p] = next
		}
		obj = next
	}
	obj[path[len(path)-1]] = v
}

// mustJSON is v's JSON.
func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
