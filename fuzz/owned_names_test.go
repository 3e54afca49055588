package fuzz

import (
	"testing"
)

// TestSameOutcomeOwnedNames runs the scenarios of a fault-free seed of a
// children controller that names each child after its parent's UID.
// The unobserved-state scenario recreates a parent (a new UID). The
// garbage collector deletes its child and the controller makes one of a
// new name. same-outcome matches it with the reference's through their
// owner (oracle.OwnedNameWhy). The same controller edge-triggered by
// mistake still fails.
func TestSameOutcomeOwnedNames(t *testing.T) {
	t.Parallel()
	on := true
	tests := []struct {
		name    string
		opts    childrenOpts
		wantSig string // "" : holds
	}{
		{name: "owned names - children named after their parent's UID, the scenarios - pass", opts: childrenOpts{hashNames: true}},
		{name: "owned names - the same, edge-triggered by mistake - fail", opts: childrenOpts{hashNames: true, markRelists: true},
			wantSig: "same-outcome{configmaps data.relisted}"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewCampaign(Options{Cassettes: []string{targetCassette}, Target: childrenTargetWith("children-hashed", tt.opts),
				WatchList: &on, Scenarios: true})
			if err != nil {
				t.Fatalf("NewCampaign: got %v, want nil", err)
			}
			out := c.Check(t, Input{WatchList: true}.Bytes())
			if out.Observation == nil || len(out.Observation.Writes) == 0 {
				t.Fatalf("writes: got none, want the controller's children")
			}
			got := ""
			if out.Failed() {
				got = out.Signature().String()
			}
			if got != tt.wantSig {
				t.Errorf("signature: got %q, want %q (scenario %s)\n%s", got, tt.wantSig, out.Scenario, out.Report)
			}
		})
	}
}
