package tune

import (
	"runtime"
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

func TestWorkerProcs(t *testing.T) {
	before := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(before)
	for _, tc := range []struct {
		name, env string
		set       bool
		want      int
	}{
		{"worker procs - GOMAXPROCS unset - one - pass", "", true, 1},
		{"worker procs - GOMAXPROCS set - left as it is - pass", "3", false, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("GOMAXPROCS", tc.env)
			runtime.GOMAXPROCS(3)
			if got := WorkerProcs(); got != tc.set {
				t.Errorf("got WorkerProcs() %v, want %v", got, tc.set)
			}
			if got := runtime.GOMAXPROCS(0); got != tc.want {
				t.Errorf("got GOMAXPROCS %d, want %d", got, tc.want)
			}
		})
	}
}
