// Package harness runs one target against one replay inside a
// testing/synctest bubble, in virtual time, and returns what it observed.
//   - Target is client-go code.
//   - Env is what it gets: a REST config of the in-process transport,
//     ListerWatcher and Clientset at the run's level, and the Probe it
//     reports its notifications, store and HasSynced to.
//   - Spec says what one run replays: history, plan, client path, gates,
//     level.
//   - Observe runs it and counts what the target leaves running.
//
// A run ends when the target has caught up with an exhausted replay, when
// the watchdog ends it, or when it crosses its first behaviour bound.
// The bounds are no-hot-loop, no-write-storm and no-conflict-loop. At one,
// the request bound holds the target's requests and the run ends there.
// Each request reaches the replay after a fixed virtual latency
// (Spec.Latency, 1 ms by default). So the clock moves on between a
// target's requests as on a real cluster.
//
//	obs := harness.Observe(t, harness.Spec{History: h, Plan: plan, Target: target, WatchList: true})
//	results := oracle.Judge(obs)
//
// The driver (package fuzz) turns inputs into Specs; the built-in targets
// are package targets.
package harness
