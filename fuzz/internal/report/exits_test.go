package report

import (
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
)

// TestExitsText checks the report's line on a container target's exits.
func TestExitsText(t *testing.T) {
	tests := []struct {
		name  string
		exits []observe.Exit
		want  string
	}{
		{name: "exits - one exit, restarted 10 s later - pass", exits: []observe.Exit{{At: 2 * time.Minute, RestartedAt: 2*time.Minute + 10*time.Second, Err: "timed out"}},
			want: "exits: 1 (Run returned an error; the kubelet restarted it, cold): at 2m0s, restarted at 2m10s; the first: timed out"},
		{name: "exits - two exits - pass", exits: []observe.Exit{{At: time.Minute, RestartedAt: time.Minute + 10*time.Second, Err: "a"}, {At: 3 * time.Minute, RestartedAt: 3*time.Minute + 20*time.Second, Err: "b"}},
			want: "exits: 2 (Run returned an error; the kubelet restarted it, cold): at 1m0s, restarted at 1m10s; at 3m0s, restarted at 3m20s; the first: a"},
		{name: "exits - the run ended within the backoff - pass", exits: []observe.Exit{{At: 90 * time.Second, RestartedAt: -1, Err: "c"}},
			want: "exits: 1 (Run returned an error; the kubelet restarted it, cold): at 1m30s, the run ended before its restart; the first: c"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := exitsText(tc.exits); got != tc.want {
				t.Errorf("exits line: got %q, want %q", got, tc.want)
			}
		})
	}
}
