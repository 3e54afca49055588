// Package harness runs one target against one replay inside a
// testing/synctest bubble, in virtual time, and returns what it observed:
// Target is client-go code, Env what it gets (a REST config of the
// in-process transport, ListerWatcher and Clientset at the run's level,
// the Probe it reports its notifications, store and HasSynced to), Spec
// says what one run replays (history, plan, client path, gates, level),
// and Observe runs it until the target has caught up with an exhausted
// replay or the watchdog ends it, holding a hot loop with its request
// bound and counting what the target leaves running.
//
//	obs := harness.Observe(t, harness.Spec{History: h, Plan: plan, Target: target, WatchList: true})
//	results := oracle.Judge(obs)
//
// The driver (package fuzz) turns inputs into Specs; the built-in targets
// are package targets.
package harness
