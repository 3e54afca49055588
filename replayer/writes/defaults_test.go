package writes

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// phaseDefaulter defaults the status phase of claims and namespaces as
// k8s.io/kubernetes v1.37.2 pkg/apis/core/v1 defaults.go does
// (SetDefaults_PersistentVolumeClaim, SetDefaults_NamespaceStatus).
var phaseDefaulter = defaulterFunc(func(o runtime.Object) {
	switch o := o.(type) {
	case *corev1.PersistentVolumeClaim:
		if o.Status.Phase == "" {
			o.Status.Phase = corev1.ClaimPending
		}
	case *corev1.Namespace:
		if o.Status.Phase == "" {
			o.Status.Phase = corev1.NamespaceActive
		}
	}
})

// TestStoredDefaults checks that a kind's Defaulter defaults the object
// as stored (the storage codec's decode), after the strategy reset its
// status. It checks create and update. A kind with none leaves it as is.
func TestStoredDefaults(t *testing.T) {
	claims := builtinKind("", "persistentvolumeclaims", "PersistentVolumeClaim")
	defaulted := claims
	defaulted.Defaulter = phaseDefaulter
	old := stored(t, claims, "5", "uid-old", `{"metadata":{"name":"c","namespace":"ns"},"spec":{"volumeName":"v"}}`)
	tests := []struct {
		name      string
		kind      Kind
		verb      Verb
		dryRun    bool
		wantPhase string
		wantEvent Event
	}{
		{"stored defaults - claim create - pass", defaulted, Create, false, "Pending", Added},
		{"stored defaults - claim create dry run - pass", defaulted, Create, true, "Pending", None},
		{"stored defaults - claim update keeps no status - pass", defaulted, Update, false, "Pending", Modified},
		{"stored defaults - claim create without defaulter - pass", claims, Create, false, "", Added},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := mapState{}
			name := "new"
			if tt.verb == Update {
				st["ns/c"], name = old, "c"
			}
			b := body(t, obj(t, tt.kind, `{"metadata":{"name":"`+name+`"},"spec":{"volumeName":"w"},"status":{"phase":"Bound"}}`))
			req := Request{Verb: tt.verb, Kind: tt.kind, Namespace: "ns", Body: b, DryRun: tt.dryRun}
			if tt.verb == Update {
				req.Name = name
			}
			res, err := Do(st, testEnv(), req)
			if err != nil {
				t.Fatalf("got error %v, want nil", err)
			}
			if res.Event != tt.wantEvent {
				t.Errorf("got event %q, want %q", res.Event, tt.wantEvent)
			}
			if got, _, _ := unstructured.NestedString(res.Answer.Object, "status", "phase"); got != tt.wantPhase {
				t.Errorf("answer phase: got %q, want %q", got, tt.wantPhase)
			}
			if res.Stored != nil {
				if got, _, _ := unstructured.NestedString(res.Stored.Object, "status", "phase"); got != tt.wantPhase {
					t.Errorf("stored phase: got %q, want %q", got, tt.wantPhase)
				}
			}
		})
	}
}
