package fuzz

import (
	"fmt"
	"testing"
)

func TestParallelWorkersOneCassette(t *testing.T) {
	c, err := NewCampaign(Options{Cassettes: []string{"../cassettes/real-configmaps-pods-watchlist.yaml"}})
	if err != nil {
		t.Fatalf("NewCampaign: got error %v, want none", err)
	}
	inputs := [][]byte{{0, 1}, {0, 0}, {0, 1, 0x82}, {0, 0, 0, 0x82}}
	for w := range 4 {
		t.Run(fmt.Sprintf("parallel workers - typed level, one cassette, worker %d - every run converges - pass", w), func(t *testing.T) {
			t.Parallel()
			for k := range 3 {
				for _, in := range inputs {
					if out := c.Check(t, in); out.Report != "" || out.Unconfirmed != "" {
						t.Errorf("round %d, input %q: got report %q (unconfirmed %q), want none", k, in, out.Report, out.Unconfirmed)
					}
				}
			}
		})
	}
}
