package replayer

import (
	"context"
	"testing"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/faults"
)

// TestSpentWithWriteOnlyResource checks that a plan whose points the
// run's resource has passed is spent. The target also writes a resource
// it never lists or watches (a leader election's lease). Its writes are
// numbered on their own: such a resource reaches no point.
func TestSpentWithWriteOnlyResource(t *testing.T) {
	t.Parallel()
	plan, err := faults.ParseText("drop-bookmark:at=1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name        string
		lists       int
		writeLeases bool
		want        bool
	}{
		{name: "spent - the run's resource past the point - pass", lists: 3, want: true},
		{name: "spent - the run's resource past the point, leases written - pass", lists: 3, writeLeases: true, want: true},
		{name: "spent - the run's resource not past the point, leases written - fail", lists: 1, writeLeases: true, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(configMapsHistory(t), WithPlan(plan))
			cs := writeClient(t, s, false)
			ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
			defer cancel()
			if tt.writeLeases {
				if _, err := cs.CoordinationV1().Leases("kube-system").Create(ctx, &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: "lock"}}, metav1.CreateOptions{}); err != nil {
					t.Fatalf("Create lease: got error %v, want none", err)
				}
			}
			for range tt.lists {
				if _, err := cs.CoreV1().ConfigMaps("").List(ctx, metav1.ListOptions{}); err != nil {
					t.Fatalf("List: got error %v, want none", err)
				}
			}
			if got := s.Spent(); got != tt.want {
				t.Errorf("Spent: got %v, want %v", got, tt.want)
			}
		})
	}
}
