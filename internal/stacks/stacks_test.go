package stacks

import (
	"runtime"
	"strings"
	"testing"
)

// parked blocks until done is closed.
func parked(done chan struct{}) { <-done }

// TestCount counts goroutines parked in a function of this test.
func TestCount(t *testing.T) {
	done := make(chan struct{})
	for range 3 {
		go parked(done)
	}
	defer close(done)
	for _, tc := range []struct {
		name  string
		frame string
		want  int
	}{
		{"count - three goroutines parked here - 3 - pass", "stacks.parked(", 3},
		{"count - a frame no goroutine is in - 0 - pass", "stacks.nowhere(", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := 0
			for range 100 { // the goroutines may not have reached parked yet
				if got = Count(tc.frame); got == tc.want {
					break
				}
				gosched()
			}
			if got != tc.want {
				t.Errorf("count of %q: got %d, want %d", tc.frame, got, tc.want)
			}
		})
	}
	if all := All(); len(all) < 4 || !strings.HasPrefix(all[0], "goroutine ") {
		t.Errorf("all: got %d stacks starting %q, want at least 4, each with its header", len(all), all[0][:min(len(all[0]), 20)])
	}
}

// gosched lets the parked goroutines run.
func gosched() { runtime.Gosched() }
