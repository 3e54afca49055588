package fuzz

import (
	"testing"

	"github.com/lwreplay/lwreplay/internal/bubble"
)

// BenchmarkUserTargets measures whole runs (a replay of the reference
// cassette, no fault) of two user targets written on the helpers, per
// level and client path, on every core: factory, a SharedInformerFactory's
// configmap informer over env.Clientset(), and listerwatcher, an informer
// over env.ListerWatcher(&corev1.ConfigMap{}). runs/s is the figure.
func BenchmarkUserTargets(b *testing.B) {
	h := referenceHistory(b)
	for _, target := range []Target{factoryTarget, handlerTarget("listerwatcher", nil)} {
		for _, level := range []Level{Typed, Wire} {
			for _, watchList := range []bool{true, false} {
				path := "list"
				if watchList {
					path = "watchlist"
				}
				b.Run(target.Name+"/"+level.String()+"/"+path, func(b *testing.B) {
					spec := Spec{History: h, Target: target, WatchList: watchList, Level: level, decoded: newDecoded()}
					err := bubble.Host(func(t *testing.T) {
						Observe(t, spec) // warm the decoded answers
						b.ResetTimer()
						b.RunParallel(func(pb *testing.PB) {
							for pb.Next() {
								if obs := Observe(t, spec); obs == nil || obs.ConvergedAt < 0 {
									t.Errorf("run: got no convergence, want one")
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
	}
}
