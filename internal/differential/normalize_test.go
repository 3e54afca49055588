package differential

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
)

// obj builds an object of the given fields for the normalizer's tests.
func obj(ns, name, generateName, uid string, owner *metav1.OwnerReference, fields map[string]any) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{}}
	for k, v := range fields {
		u.Object[k] = v
	}
	u.SetNamespace(ns)
	u.SetName(name)
	u.SetGenerateName(generateName)
	u.SetUID(types.UID(uid))
	u.SetResourceVersion(uid + "-rv")
	if owner != nil {
		u.SetOwnerReferences([]metav1.OwnerReference{*owner})
	}
	return u
}

func ctrl(kind, name, uid string) *metav1.OwnerReference {
	yes := true
	return &metav1.OwnerReference{Kind: kind, Name: name, UID: types.UID(uid), Controller: &yes}
}

func phase(p string) map[string]any { return map[string]any{"status": map[string]any{"phase": p}} }

func TestLifecycles(t *testing.T) {
	ns := "diff-deployment"
	dep := obj(ns, "app", "", "d1", nil, nil)
	rs := obj(ns, "app-5d8f7c9b6", "", "r1", ctrl("Deployment", "app", "d1"), nil)
	podA := obj(ns, "app-5d8f7c9b6-abcde", "app-5d8f7c9b6-", "p1", ctrl("ReplicaSet", "app-5d8f7c9b6", "r1"), phase("Pending"))
	podARunning := obj(ns, "app-5d8f7c9b6-abcde", "app-5d8f7c9b6-", "p1", ctrl("ReplicaSet", "app-5d8f7c9b6", "r1"), phase("Running"))
	podB := obj(ns, "app-5d8f7c9b6-zzzzz", "app-5d8f7c9b6-", "p2", ctrl("ReplicaSet", "app-5d8f7c9b6", "r1"), phase("Pending"))
	rev := obj(ns, "web-7f9c", "", "c1", ctrl("StatefulSet", "web", "s1"), map[string]any{"revision": int64(2)})
	pv := obj("", "pvc-0e3a", "", "v1", nil, map[string]any{"spec": map[string]any{"claimRef": map[string]any{"namespace": "diff-statefulset", "name": "data-web-0"}}})
	events := []Event{
		{Resource: "deployments", Type: Added, Object: dep},
		{Resource: "replicasets", Type: Added, Object: rs},
		{Resource: "pods", Type: Added, Object: podA},
		{Resource: "pods", Type: Added, Object: podB},
		{Resource: "pods", Type: Modified, Object: podA}, // a metadata-only change: collapsed
		{Resource: "pods", Type: Modified, Object: podARunning},
		{Resource: "pods", Type: Deleted, Object: podB},
		{Resource: "controllerrevisions", Type: Added, Object: rev},
		{Resource: "persistentvolumes", Type: Added, Object: pv},
	}
	got := Lifecycles(events)
	tests := []struct {
		name string
		key  Key
		want Lifecycle
	}{
		{
			name: "lifecycles - a replicaset's pod by owner and ordinal - pass",
			key:  Key{"pods", ns, "app-rs#0#0"},
			want: Lifecycle{"created: phase=Pending ready=- bound=false image=- owners=ReplicaSet/app-rs#0", "phase=Running ready=- bound=false image=- owners=ReplicaSet/app-rs#0"},
		},
		{
			name: "lifecycles - a deleted pod - pass",
			key:  Key{"pods", ns, "app-rs#0#1"},
			want: Lifecycle{"created: phase=Pending ready=- bound=false image=- owners=ReplicaSet/app-rs#0", "deleted"},
		},
		{
			name: "lifecycles - a deployment's replicaset by order - pass",
			key:  Key{"replicasets", ns, "app-rs#0"},
			want: Lifecycle{"created: spec=0 replicas=0 ready=0 available=0 revision= owners=Deployment/app"},
		},
		{
			name: "lifecycles - a controller revision by owner and revision - pass",
			key:  Key{"controllerrevisions", ns, "web-revision-2"},
			want: Lifecycle{"created: revision=2 owners=StatefulSet/web"},
		},
		{
			name: "lifecycles - a volume by its claim - pass",
			key:  Key{"persistentvolumes", "diff-statefulset", "pv-for-data-web-0"},
			want: Lifecycle{"created: phase="},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if l := got[tt.key]; !slices.Equal(l, tt.want) {
				t.Errorf("got %q, want %q (keys: %v)", l, tt.want, keysOf(got))
			}
		})
	}
	if len(got) != 6 {
		t.Errorf("lifecycles - object count - pass: got %d, want 6 (%v)", len(got), keysOf(got))
	}
}

func keysOf(m map[Key]Lifecycle) []Key {
	var out []Key
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestLifecycleRecreated(t *testing.T) {
	ns := "diff-statefulset"
	pod := func(uid, p string) *unstructured.Unstructured {
		return obj(ns, "web-0", "web-", uid, ctrl("StatefulSet", "web", "s1"), phase(p))
	}
	got := Lifecycles([]Event{
		{Resource: "pods", Type: Added, Object: pod("a", "Running")},
		{Resource: "pods", Type: Deleted, Object: pod("a", "Running")},
		{Resource: "pods", Type: Added, Object: pod("b", "Pending")},
	})[Key{"pods", ns, "web-0"}]
	want := Lifecycle{
		"created: phase=Running ready=- bound=false image=- owners=StatefulSet/web", "deleted",
		"created: phase=Pending ready=- bound=false image=- owners=StatefulSet/web",
	}
	if !slices.Equal(got, want) {
		t.Errorf("lifecycles - a pod made anew under its name - pass: got %q, want %q", got, want)
	}
	if f := got.Final(); f != "phase=Pending ready=- bound=false image=- owners=StatefulSet/web" {
		t.Errorf("lifecycles - final of a made-anew pod - pass: got %q, want its last state", f)
	}
}
