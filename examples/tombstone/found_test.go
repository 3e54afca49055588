package tombstone

import (
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// foundByFuzzing is an input `go test -fuzz '^FuzzMirror$'` found. It is
// the paged LIST cassette, WatchList off, and a first watch answered 410
// Expired at once. So the relist misses deletes.
var foundByFuzzing = []byte("000\x86")

func TestFoundInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		target     fuzz.Target
		wantFailed bool
	}{
		{name: "mirror - input found by fuzzing, planted handler - panics, fail", target: mirrorTarget, wantFailed: true},
		{name: "mirror - input found by fuzzing, fixed handler - pass", target: fixedMirrorTarget, wantFailed: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := fuzz.NewCampaign(fuzz.Options{
				Cassettes:  fuzz.Glob("../../cassettes/real-configmaps-pods-*.yaml"),
				Target:     tc.target,
				Invariants: []string{"converged", "clean-stop", "mirror-matches-truth"},
				Extra:      []fuzz.Invariant{mirrorMatchesTruth},
			})
			if err != nil {
				t.Fatalf("NewCampaign: got error %v, want none", err)
			}
			out := c.Check(t, foundByFuzzing)
			if tc.wantFailed && out.Observation != nil {
				testutil.RecordFinding(t, testutil.Finding{Finding: "planted: tombstone panics the example's delete handler (expire-watch:after=0,at=1)",
					ClientGo: harness.ClientGoVersion(), Gates: testutil.GatesOf(out.Observation.Gates, "WatchListClient"), Reproduced: boolInt(out.Failed()), Runs: 1})
			}
			if out.Failed() != tc.wantFailed {
				t.Fatalf("failed: got %v, want %v; report:\n%s", out.Failed(), tc.wantFailed, out.Report)
			}
			if tc.wantFailed && out.Results["clean-stop"] == nil {
				t.Errorf("clean-stop: got it held, want the handler's panic")
			}
		})
	}
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}
