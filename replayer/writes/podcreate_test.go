package writes

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// TestPodCreateStatus creates pods as kube-apiserver's pod strategy
// starts them (PrepareForCreate): Pending, with the QoS class
// ComputePodQOS gives, and PodScheduled=False when gates hold the pod;
// a status in the body is dropped. With a Defaulter, the body is
// defaulted first.
func TestPodCreateStatus(t *testing.T) {
	pods := builtinKind("", "pods", "Pod")
	defaulted := pods
	defaulted.Defaulter = defaulterFunc(func(o runtime.Object) {
		u, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		_ = unstructured.SetNestedField(u, "Always", "spec", "restartPolicy")
		_ = runtime.DefaultUnstructuredConverter.FromUnstructured(u, o)
	})
	tests := []struct {
		name                           string
		kind                           Kind
		spec                           string
		wantQOS, wantCond, wantRestart string
	}{
		{"pod create - no resources - pass", pods, `{"containers":[{"name":"c","image":"i"}]}`, "BestEffort", "", ""},
		{"pod create - requests equal limits - pass", pods,
			`{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"1","memory":"1Gi"}}}]}`, "Guaranteed", "", ""},
		{"pod create - a request only - pass", pods, `{"containers":[{"name":"c","image":"i","resources":{"requests":{"cpu":"1"}}}]}`, "Burstable", "", ""},
		{"pod create - one guaranteed one best effort - pass", pods,
			`{"containers":[{"name":"a","image":"i","resources":{"requests":{"cpu":"1","memory":"1Gi"},"limits":{"cpu":"1","memory":"1Gi"}}},{"name":"b","image":"i"}]}`, "Burstable", "", ""},
		{"pod create - scheduling gates - pass", pods, `{"schedulingGates":[{"name":"g"}],"containers":[{"name":"c","image":"i"}]}`, "BestEffort", "SchedulingGated", ""},
		{"pod create - defaulter - pass", defaulted, `{"containers":[{"name":"c","image":"i"}]}`, "BestEffort", "", "Always"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := body(t, obj(t, tt.kind, `{"metadata":{"name":"p"},"spec":`+tt.spec+`,"status":{"phase":"Running"}}`))
			res, err := Do(mapState{}, testEnv(), Request{Verb: Create, Kind: tt.kind, Namespace: "ns", Body: body})
			if err != nil {
				t.Fatalf("create: got %v, want nil", err)
			}
			o := res.Stored.Object
			if got, _, _ := unstructured.NestedString(o, "status", "phase"); got != "Pending" {
				t.Errorf("phase: got %q, want Pending", got)
			}
			if got, _, _ := unstructured.NestedString(o, "status", "qosClass"); got != tt.wantQOS {
				t.Errorf("qosClass: got %q, want %q", got, tt.wantQOS)
			}
			conds, _, _ := unstructured.NestedSlice(o, "status", "conditions")
			gotCond := ""
			if len(conds) == 1 {
				gotCond, _, _ = unstructured.NestedString(conds[0].(map[string]any), "reason")
			}
			if gotCond != tt.wantCond || len(conds) > 1 {
				t.Errorf("conditions: got %v, want reason %q", conds, tt.wantCond)
			}
			if got, _, _ := unstructured.NestedString(o, "spec", "restartPolicy"); got != tt.wantRestart {
				t.Errorf("restartPolicy: got %q, want %q", got, tt.wantRestart)
			}
		})
	}
}

// defaulterFunc is a runtime.ObjectDefaulter of a function.
type defaulterFunc func(runtime.Object)

// Default calls f.
func (f defaulterFunc) Default(o runtime.Object) { f(o) }
