// Package targets holds the built-in targets: client-go's own consumers of
// list and watch, each reporting what it sees to the run's Probe. They are:
//   - SharedIndexInformer: plain, with resync, with a handler added late,
//     with a watch error handler, with a transform that strips
//     managedFields;
//   - a SharedInformerFactory shared by two controllers;
//   - Reflectors feeding a DeltaFIFO or a RealFIFO popped by hand.
//
// Builtin lists them in the order the docs and `lwreplay fuzz --target`
// name them.
//
//	target, ok := targets.Lookup("informer")
//	obs := harness.Observe(t, harness.Spec{History: h, Target: target})
package targets
