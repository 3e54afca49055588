package kvstore

import (
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/internal/bubble"
)

// BenchmarkRun measures fault-free runs of the correct operator on the
// WatchList cassette (a KVStore of 3 replicas scaled to 1), in runs/s.
// It runs with the cluster's own controllers as actors, and without
// them. (Without them no pod is ever made: the operator requeues until
// the run's watchdog.) docs/benchmarks.md has the figures.
func BenchmarkRun(b *testing.B) {
	for _, withActors := range []bool{true, false} {
		name := "actors"
		if !withActors {
			name = "no-actors"
		}
		b.Run(name, func(b *testing.B) {
			var c *fuzz.Campaign
			err := bubble.Host(func(t *testing.T) {
				o := options(t, target(t, "kvstore"))
				o.Scenarios, o.Plans = false, nil
				if !withActors {
					o.Actors = nil
				}
				var err error
				if c, err = fuzz.NewCampaign(o); err != nil {
					t.Fatal(err)
				}
				c.CheckPlan(t, 0, true, faults.Plan{}) // one-time setup
				b.ResetTimer()
				start := time.Now()
				for b.Loop() {
					c.CheckPlan(t, 0, true, faults.Plan{})
				}
				b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "runs/s")
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}
