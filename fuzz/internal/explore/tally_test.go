package explore

import "testing"

func TestKnownText(t *testing.T) {
	for _, tc := range []struct {
		name  string
		known map[string]int
		want  string
	}{
		{"KnownText - none - pass", nil, "no known bug"},
		{"KnownText - one - pass", map[string]int{"kubernetes#140890": 612}, "1 known bug (kubernetes#140890, 612 runs)"},
		{"KnownText - two, sorted - pass", map[string]int{"b#2": 1, "a#1": 3}, "2 known bugs (a#1, 3 runs; b#2, 1 runs)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := KnownText(tc.known); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
