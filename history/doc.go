// Package history turns recorded Kubernetes list/watch traffic into a
// per-resource ordered log of states and events: the state at the first
// list (or WatchList initial events), then every ADDED, MODIFIED and DELETED
// in resourceVersion order, plus the bookmarks and errors that were seen.
//
// It is the core of lwreplay's pipeline
//
//	cassette → history → replayer (+ plan) → target → oracle → report
//
// and depends on nothing in lwreplay but the cassette file format.
// resourceVersions stay opaque strings: a History knows their order (by
// value when every recorded RV is a decimal integer, as etcd's are; by order
// of appearance otherwise) and never asks a client to parse them.
//
// Typical use:
//
//	files, err := cassette.LoadAll("cassettes/configmaps.yaml")
//	h, err := history.Build(files...)
//	for _, l := range h.Logs {
//		final := l.StateAt(l.End())
//		...
//	}
package history
