package fuzz

import (
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/targets"
)

// TestLeaderElectionCampaignInputs replays inputs a 60 s campaign of the
// leader-election target reported. Each is a defect of the oracle's, not
// of client-go's:
//   - the known WatchList restart loop must be known by its site in the
//     informer's requests, not in the lease renewals that came last;
//   - a history that recreate rewrote (every later resourceVersion moved,
//     the lease's too) must not read as a takeover.
func TestLeaderElectionCampaignInputs(t *testing.T) {
	t.Parallel()
	target, _ := targets.Lookup("leader-election")
	tests := []struct {
		name      string
		cassettes []string
		input     string
		wantKnown string // "" for a run with no report at all
	}{
		{name: "leader-election - persistent 65 s delays, the WatchList never ends its initial events - known kubernetes#140890 - pass",
			cassettes: []string{"../cassettes/real-configmaps-expired.yaml"}, input: "\x00\x05\x94\xd9", wantKnown: "kubernetes#140890"},
		{name: "leader-election - the WatchList restart loop trips the request bound, which holds the leader's renewal - known kubernetes#140890 - pass",
			cassettes: []string{"../cassettes/real-configmaps-pods-watchlist.yaml"}, input: "\x00\x05\x9b\x00\xc5\x86\x99", wantKnown: "kubernetes#140890"},
		{name: "leader-election - a crash after the lease's create, then recreate at every watch - one leader - pass",
			cassettes: []string{"../cassettes/synthetic-configmaps-pods.yaml"}, input: "\x00\x04\xa0\x00\x86\x00\xab\xdf\x9a"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCampaign(Options{Cassettes: tc.cassettes, Target: target})
			if err != nil {
				t.Fatal(err)
			}
			out := c.Check(t, []byte(tc.input))
			switch {
			case out.Failed():
				t.Errorf("input %q: got a failure\n%s\nwant none", tc.input, out.Report)
			case out.Known != tc.wantKnown:
				t.Errorf("input %q: got known %q, want %q\n%s", tc.input, out.Known, tc.wantKnown, out.Report)
			}
		})
	}
}
