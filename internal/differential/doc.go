// Package differential runs the same scripts against a real cluster
// (kube-apiserver, kube-controller-manager, the node stand-ins) and against
// a replay with the actors, records each side's watch events, normalizes
// them and compares per kind each object's lifecycle and final state.
//
// A Script is a function over a clientset: it creates, scales, updates and
// deletes objects in its own namespace and waits for the cluster's
// controllers to act, by polling (virtual time in a bubble). A Recorder
// lists and watches every kind involved. Lifecycles turns its events into
// each object's normalized lifecycle; Compare lists the differences.
package differential
