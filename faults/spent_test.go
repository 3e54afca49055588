package faults

import "testing"

func TestPlanSpent(t *testing.T) {
	tests := []struct {
		name   string
		plan   string
		points int
		want   bool
	}{
		{name: "spent - no decision - spent - pass", plan: "", points: 0, want: true},
		{name: "spent - decision at a passed point - spent - pass", plan: "close-watch:after=1,at=3", points: 4, want: true},
		{name: "spent - decision at the next point - not spent - pass", plan: "close-watch:after=1,at=3", points: 3, want: false},
		{name: "spent - plan-level fault - spent - pass", plan: "opaque-rv", points: 0, want: true},
		{name: "spent - where-parameters only - never spent - pass", plan: "close-watch:after=1,watch=2", points: 1000, want: false},
		{name: "spent - one of two decisions pending - not spent - pass", plan: "close-watch:after=1,at=1 reset:at=9", points: 5, want: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := ParseText(tc.plan)
			if err != nil {
				t.Fatalf("ParseText(%q): got error %v, want none", tc.plan, err)
			}
			if got := p.Spent(tc.points); got != tc.want {
				t.Errorf("Spent(%d) of %q: got %v, want %v", tc.points, tc.plan, got, tc.want)
			}
		})
	}
}
