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

// TestSpentWhileDelayHolds checks that a plan is not spent while a delay
// it fired holds a frame back, whatever points it has passed. A run that
// ended then would judge a state its target was not yet sent: another
// resource's events, paused on their stream (examples/trustmanager's
// too-large-rv:at=1 delay:ms=10000,at=2 ended with the namespaces' events
// unsent, and same-outcome found the targets they make missing).
func TestSpentWhileDelayHolds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name           string
		held, released int
		want           bool
	}{
		{name: "spent - no frame held - pass", want: true},
		{name: "spent - a delay holds a frame back - fail", held: 1, want: false},
		{name: "spent - one of two held frames sent - fail", held: 2, released: 1, want: false},
		{name: "spent - every held frame sent - pass", held: 2, released: 2, want: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			x := newFaultRun(faults.Plan{}, time.Now())
			var release []func()
			for range tt.held {
				release = append(release, x.hold())
			}
			for _, r := range release[:tt.released] {
				r()
			}
			if got := x.spent(); got != tt.want {
				t.Errorf("spent: got %v, want %v", got, tt.want)
			}
		})
	}
}
