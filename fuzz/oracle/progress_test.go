package oracle

import (
	"errors"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/faults"
)

// TestProgressBoundFromFreshInstance shows progress judging the last
// instance's sync against the bound from its own start. A persistent
// crash-after-write may fire at a write long after the first fault, such
// as an Event's series update minutes on. The fresh instance it starts
// syncs then.
func TestProgressBoundFromFreshInstance(t *testing.T) {
	crash := faults.Firing{Fault: "crash-after-write", Persistent: true, At: 300 * time.Millisecond}
	late := crash
	late.At = 12*time.Minute + 10*time.Second
	tests := []struct {
		name    string
		obs     Observation
		wantErr error
	}{
		{name: "progress - synced within the bound of the first fault - pass",
			obs: Observation{Fired: []faults.Firing{crash}, SyncedAt: time.Second, EndedAt: 20 * time.Minute}},
		{name: "progress - never synced, one instance - fail",
			obs:     Observation{Fired: []faults.Firing{crash}, SyncedAt: -1, EndedAt: 20 * time.Minute},
			wantErr: ErrNoProgress},
		{name: "progress - a crash after the bound, the fresh instance synced at once - pass",
			obs: Observation{Fired: []faults.Firing{crash, late}, Crashes: []time.Duration{crash.At, late.At},
				SyncedAt: late.At + 300*time.Millisecond, EndedAt: 25 * time.Minute}},
		{name: "progress - a restart after the bound, the fresh instance synced at once - pass",
			obs: Observation{Fired: []faults.Firing{crash}, Restarts: []time.Duration{late.At},
				SyncedAt: late.At + 300*time.Millisecond, EndedAt: 25 * time.Minute}},
		{name: "progress - a crash after the bound, the fresh instance never synced - fail",
			obs: Observation{Fired: []faults.Firing{crash, late}, Crashes: []time.Duration{crash.At, late.At},
				SyncedAt: -1, EndedAt: 25 * time.Minute},
			wantErr: ErrNoProgress},
		{name: "progress - a crash after the bound, the fresh instance synced 11 minutes after its start - fail",
			obs: Observation{Fired: []faults.Firing{crash, late}, Crashes: []time.Duration{crash.At, late.At},
				SyncedAt: late.At + 11*time.Minute, EndedAt: 30 * time.Minute},
			wantErr: ErrNoProgress},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := checkProgress(&tc.obs)
			if tc.wantErr == nil && err != nil || tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Errorf("got %v, want %v", err, tc.wantErr)
			}
		})
	}
}
