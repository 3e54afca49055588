// Package harness runs one target against one replay inside a
// testing/synctest bubble, in virtual time, and returns what it observed:
// Target is client-go code, Env what it gets (a REST config of the
// in-process transport, ListerWatcher and Clientset at the run's level,
// the Probe it reports its notifications, store and HasSynced to), Spec
// says what one run replays (history, plan, client path, gates, level),
// and Observe runs it until the target has caught up with an exhausted
// replay, the watchdog ends it, or it crosses its first behaviour bound
// (no-hot-loop, no-write-storm, no-conflict-loop: the request bound holds
// the target's requests and the run ends there), counting what the target
// leaves running. Each request reaches the replay after a fixed virtual
// latency (Spec.Latency, 1 ms by default), so the clock moves on between
// a target's requests as on a real cluster.
//
//	obs := harness.Observe(t, harness.Spec{History: h, Plan: plan, Target: target, WatchList: true})
//	results := oracle.Judge(obs)
//
// The driver (package fuzz) turns inputs into Specs; the built-in targets
// are package targets.
package harness
