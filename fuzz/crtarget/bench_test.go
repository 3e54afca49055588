package crtarget_test

import (
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/bubble"
)

// BenchmarkManagerRun measures whole runs of the annotator manager per
// client path, on every core. A run replays a shipped cassette with no
// fault, to the run's early end once the controller is quiet. runs/s is
// the figure [K]'s ≥ 100 target names.
func BenchmarkManagerRun(b *testing.B) {
	files, err := cassette.LoadAll("../../cassettes/real-configmaps-pods-list-pages.yaml")
	if err != nil {
		b.Fatal(err)
	}
	h, err := history.Build(files...)
	if err != nil {
		b.Fatal(err)
	}
	for _, watchList := range []bool{true, false} {
		path := "list"
		if watchList {
			path = "watchlist"
		}
		b.Run(path, func(b *testing.B) {
			spec := harness.Spec{History: h, Target: annotatorTarget, WatchList: watchList}
			err := bubble.Host(func(t *testing.T) {
				harness.Observe(t, spec) // the write engine's one-time setup
				b.ResetTimer()
				b.RunParallel(func(pb *testing.PB) {
					for pb.Next() {
						if obs := harness.Observe(t, spec); obs == nil || !obs.EndedEarly {
							t.Errorf("run: got no early end, want the run to end once the controller is quiet")
						}
					}
				})
			})
			if err != nil {
				b.Fatalf("host: got error %v, want none", err)
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "runs/s")
		})
	}
}
