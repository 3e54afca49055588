package tombstone

import (
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
)

// TestReproducers replays the shared reproducers of the tombstone finding
// (testdata/README.md), each with no fault plan. Its recorded traffic
// alone must break the planted handler, and leave the fixed one
// converged.
func TestReproducers(t *testing.T) {
	const (
		report = "../../testdata/reproducers/tombstone_fuzz.yaml"   // fuzz failure report's reproducer.yaml
		mutate = "../../testdata/reproducers/tombstone_mutate.yaml" // lwreplay mutate's output
	)
	tests := []struct {
		name       string
		cassette   string
		target     fuzz.Target
		wantFailed bool
	}{
		{name: "mirror - fuzz report reproducer, planted handler - panics, fail", cassette: report, target: mirrorTarget, wantFailed: true},
		{name: "mirror - fuzz report reproducer, fixed handler - pass", cassette: report, target: fixedMirrorTarget, wantFailed: false},
		{name: "mirror - mutate reproducer, planted handler - panics, fail", cassette: mutate, target: mirrorTarget, wantFailed: true},
		{name: "mirror - mutate reproducer, fixed handler - pass", cassette: mutate, target: fixedMirrorTarget, wantFailed: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := fuzz.NewCampaign(fuzz.Options{
				Cassettes:  []string{tc.cassette},
				Target:     tc.target,
				Invariants: []string{"converged", "clean-stop", "mirror-matches-truth"},
				Extra:      []fuzz.Invariant{mirrorMatchesTruth},
			})
			if err != nil {
				t.Fatalf("NewCampaign: got error %v, want none", err)
			}
			out := c.Check(t, []byte{0, 0, 0x86}) // a reproducer ignores the plan bytes
			if len(out.Plan.Decisions) != 0 || len(out.Observation.Fired) != 0 {
				t.Fatalf("plan: got %v (fired %v), want none: a reproducer replays with no plan", out.Plan, out.Observation.Fired)
			}
			if out.Failed() != tc.wantFailed {
				t.Fatalf("failed: got %v, want %v; report:\n%s", out.Failed(), tc.wantFailed, out.Report)
			}
			if tc.wantFailed && (out.Results["clean-stop"] == nil || out.Results["mirror-matches-truth"] == nil) {
				t.Errorf("broken: got clean-stop %v, mirror-matches-truth %v, want both broken", out.Results["clean-stop"], out.Results["mirror-matches-truth"])
			}
		})
	}
}
