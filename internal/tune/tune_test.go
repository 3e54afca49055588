package tune

import (
	"runtime/debug"
	"testing"
)

func TestGC(t *testing.T) {
	before := debug.SetGCPercent(100)
	defer debug.SetGCPercent(before)
	for _, tc := range []struct {
		name, env string
		set       bool
		want      int
	}{
		{"gc - GOGC unset, a small heap - 400 - pass", "", true, fuzzGCPercent},
		{"gc - GOGC set - left as it is - pass", "100", false, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOGC", tc.env)
			debug.SetGCPercent(100)
			if got := GC(); got != tc.set {
				t.Errorf("got GC() %v, want %v", got, tc.set)
			}
			if got := debug.SetGCPercent(100); got != tc.want {
				t.Errorf("got GC percent %d, want %d", got, tc.want)
			}
		})
	}
}
