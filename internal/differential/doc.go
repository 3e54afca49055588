// Package differential runs the same scripts against a real cluster and
// against a replay with the actors. The real cluster is kube-apiserver,
// kube-controller-manager and the node stand-ins. It records each side's
// watch events and normalizes them. It compares per kind each object's
// lifecycle and final state.
//
// A Script is a function over a clientset. It creates, scales, updates and
// deletes objects in its own namespace. It waits for the cluster's
// controllers to act, by polling (virtual time in a bubble). A Recorder
// lists and watches every kind involved. Lifecycles turns its events into
// each object's normalized lifecycle; Compare lists the differences.
package differential
