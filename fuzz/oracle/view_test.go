package oracle_test

import (
	"errors"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// TestConsistentView judges built observations of truth(t), whose store
// views the test chooses. The truth holds ns/a, ns/b and ns/c; then a is
// updated, b deleted and d added. A view of a state the log passed through
// was served. A mix of two states was not.
func TestConsistentView(t *testing.T) {
	t.Parallel()
	view := func(rvs ...string) observe.StoreView { // key, rv, key, rv...
		var items []any
		for i := 0; i < len(rvs); i += 2 {
			ns, name, _ := strings.Cut(rvs[i], "/")
			items = append(items, &metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: rvs[i+1]})
		}
		keys, sum, ok := observe.ViewOf(items)
		if !ok {
			t.Fatalf("ViewOf(%v): got not ok, want a digest", rvs)
		}
		return observe.StoreView{Delivery: 3, Keys: keys, Sum: sum}
	}
	initial := view("ns/a", "1001", "ns/b", "1002", "ns/c", "1003")
	final := view("ns/a", "1004", "ns/c", "1003", "ns/d", "1006")
	mix := view("ns/a", "1001", "ns/c", "1003", "ns/d", "1006") // d added, a's update not applied
	tests := []struct {
		name      string
		views     []observe.StoreView
		gates     map[string]bool
		fired     []faults.Firing
		want      error // consistent-view's; nil: holds or not judged
		anyway    error // viewViolations', whatever the gates
		notJudged bool  // consistent-view has nothing to judge (client-go promises nothing)
	}{
		{name: "consistent view - AtomicFIFO on, the initial and the final state - pass",
			views: []observe.StoreView{initial, final}, gates: map[string]bool{"AtomicFIFO": true}},
		{name: "consistent view - AtomicFIFO on, no view - pass", gates: map[string]bool{"AtomicFIFO": true}},
		{name: "consistent view - AtomicFIFO on, a mix of the initial and the final state - fail",
			views: []observe.StoreView{initial, mix, final}, gates: map[string]bool{"AtomicFIFO": true},
			want: oracle.ErrInconsistentView, anyway: oracle.ErrInconsistentView},
		{name: "consistent view - AtomicFIFO on, the state between b's delete and d's add - pass",
			views: []observe.StoreView{view("ns/a", "1004", "ns/c", "1003")}, gates: map[string]bool{"AtomicFIFO": true}},
		{name: "consistent view - AtomicFIFO on, the initial state missing a key - fail",
			views: []observe.StoreView{view("ns/a", "1001", "ns/b", "1002")}, gates: map[string]bool{"AtomicFIFO": true},
			want: oracle.ErrInconsistentView, anyway: oracle.ErrInconsistentView},
		{name: "consistent view - AtomicFIFO on, the final state at an rv never served - fail",
			views: []observe.StoreView{view("ns/a", "1004", "ns/c", "1003", "ns/d", "1007")}, gates: map[string]bool{"AtomicFIFO": true},
			want: oracle.ErrInconsistentView, anyway: oracle.ErrInconsistentView},
		{name: "consistent view - AtomicFIFO off, a mix - not judged - pass", notJudged: true,
			views: []observe.StoreView{mix}, gates: map[string]bool{"AtomicFIFO": false}, anyway: oracle.ErrInconsistentView},
		{name: "consistent view - no AtomicFIFO gate, a mix - not judged - pass", notJudged: true,
			views: []observe.StoreView{mix}, anyway: oracle.ErrInconsistentView},
		{name: "consistent view - AtomicFIFO on, a mix after a breaking fault - not judged - pass", notJudged: true,
			views: []observe.StoreView{mix}, gates: map[string]bool{"AtomicFIFO": true}, fired: []faults.Firing{{Fault: "reorder"}},
			anyway: oracle.ErrInconsistentView},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := goodObservation(t)
			o.Views, o.Gates, o.Fired = tc.views, tc.gates, tc.fired
			got, why := oracle.JudgeOne(mustInvariant(t, "consistent-view"), o)
			if !errors.Is(got, tc.want) || (tc.want == nil && got != nil) {
				t.Errorf("consistent-view: got %v, want %v", got, tc.want)
			}
			if (why != "") != tc.notJudged {
				t.Errorf("consistent-view not judged: got %q, want not judged %v", why, tc.notJudged)
			}
			if got := viewViolations(t, o); !errors.Is(got, tc.anyway) || (tc.anyway == nil && got != nil) {
				t.Errorf("viewViolations: got %v, want %v", got, tc.anyway)
			}
		})
	}
}

// viewViolations returns consistent-view's verdict on o, as if the run had
// AtomicFIFO on and no breaking fault fired. It says whether a handler
// read a state never served, whatever the gates.
func viewViolations(t *testing.T, o *observe.Observation) error {
	t.Helper()
	c := *o
	c.Gates, c.Fired = map[string]bool{observe.GateAtomicFIFO: true}, nil
	return oracle.Judge(&c, "consistent-view")["consistent-view"]
}
