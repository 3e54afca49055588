package harness

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
)

// TestJitterIsTheRuns proves client-go's backoff jitter is the run's:
// apimachinery's wait.Jitter, which every client-go backoff steps through,
// reads the jitter setJitter set. It fails when an apimachinery version
// stops reading wait.jitterRand.
func TestJitterIsTheRuns(t *testing.T) {
	tests := []struct {
		name string
		u    float64
		want time.Duration
	}{
		{name: "jitter - a quarter - 1 s steps to 1.25 s - pass", u: 0.25, want: 1250 * time.Millisecond},
		{name: "jitter - none - 1 s stays 1 s - pass", u: 0, want: time.Second},
		{name: "jitter - nearly all - 1 s steps to just under 2 s - pass", u: 0.999, want: 1999 * time.Millisecond},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			setJitter(tc.u)
			for range 3 {
				if got := wait.Jitter(time.Second, 1.0); got != tc.want {
					t.Fatalf("wait.Jitter(1s, 1.0): got %v, want %v", got, tc.want)
				}
			}
			b := wait.Backoff{Duration: 800 * time.Millisecond, Factor: 2, Jitter: 1, Steps: 3}
			if got, want := b.Step(), 800*time.Millisecond+time.Duration(tc.u*float64(800*time.Millisecond)); got != want {
				t.Errorf("Backoff.Step: got %v, want %v", got, want)
			}
		})
	}
}
