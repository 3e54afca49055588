package scenario

import (
	"testing"
	"time"
)

// TestStartsPlan holds a fuzzing worker's scenario budget to the input's
// whole check. A plan starts only while the longest plan check of its key
// so far would end within Budget of the input's start. So a loaded machine
// (a check of seconds) runs fewer plans an input. It does not run an input
// past go test's 10 s, which go test's engine reports as failing.
func TestStartsPlan(t *testing.T) {
	tests := []struct {
		name             string
		elapsed, longest time.Duration
		want             bool
	}{
		{name: "StartsPlan - first plan of a key, input's own run quick - pass", elapsed: 300 * time.Millisecond, want: true},
		{name: "StartsPlan - quick plans, time left - pass", elapsed: 2 * time.Second, longest: 500 * time.Millisecond, want: true},
		{name: "StartsPlan - input's own and reference runs spent the budget - fail", elapsed: Budget, want: false},
		{name: "StartsPlan - a plan as long as the last would end past the budget - fail", elapsed: 2 * time.Second, longest: 4 * time.Second, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := StartsPlan(tc.elapsed, tc.longest); got != tc.want {
				t.Errorf("StartsPlan(%v, %v): got %v, want %v", tc.elapsed, tc.longest, got, tc.want)
			}
		})
	}
}
