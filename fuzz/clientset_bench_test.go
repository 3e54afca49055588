package fuzz

import (
	"testing"
)

// BenchmarkUserTargets measures whole runs (a replay of the reference
// cassette, no fault) of two user targets written on the helpers. It runs
// per level and client path, on every core. The targets are:
//   - factory, a SharedInformerFactory's configmap informer over
//     env.Clientset();
//   - listerwatcher, an informer over env.ListerWatcher(&corev1.ConfigMap{}).
//
// runs/s is the figure.
func BenchmarkUserTargets(b *testing.B) {
	benchmarkRuns(b, []Target{factoryTarget, handlerTarget("listerwatcher", nil)})
}
