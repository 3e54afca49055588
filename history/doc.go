// Package history turns recorded Kubernetes list/watch traffic into a
// per-resource ordered log of states and events. The log starts with the
// state at the first list (or WatchList initial events). Then comes every
// ADDED, MODIFIED and DELETED in resourceVersion order, plus the bookmarks
// and errors that were seen.
//
// It is the core of lwreplay's pipeline
//
//	cassette → history → replayer (+ plan) → target → oracle → report
//
// and depends on nothing in lwreplay but the cassette file format. A
// history is built from one recording; cassette.Group says which files
// are one. A recording with no list or watch answered with data is
// refused (ErrNoTraffic).
//
// # resourceVersion order
//
// resourceVersions are opaque to clients, and a History never asks a
// client to parse one. The server compares its own, though: kube-apiserver's
// are etcd revisions, decimal integers it orders by value. So each
// resource's RVs (Log.Order) are ordered in one of two ways:
//
//   - When every RV the resource recorded is a decimal integer, by value,
//     as the server does. An RV never seen can still be placed, and the
//     recording is held to that order: a watch whose events go back (12
//     after 13) or a list item newer than its list is a contradiction
//     (ErrContradiction).
//   - Otherwise (a server not backed by etcd, or RVs rewritten by the
//     opaque-rv fault), by what the recording itself shows of that
//     resource, in recorded order: each RV is placed where it first
//     appears — a list's items before the list's RV, a WatchList's initial
//     events before their initial-events-end bookmark, a watch's RV before
//     its events, the events of a stream in the order they came, and what a
//     later request shows after what earlier ones showed. Only RVs seen can
//     be placed. The same traffic with RVs that go back by value is then no
//     contradiction (their order is the stream's); what stays one is what
//     the recording contradicts by itself: an RV seen again after a newer
//     one within a stream, a list item seen after its list's RV.
//
// RVs of different resources are never compared, even when the same
// string appears in both. (A WatchList's bookmark often carries the RV
// of another resource's newest object.) History.Order merges the
// resources' orders into one for RVs, which lists them all.
//
// # Recorded events as other writers' writes
//
// A history records what every writer did to the objects. A replay that
// takes the target's writes (package replayer) serves the history as the
// other actors. A recorded event is then that writer's write. An ADDED is
// its create, a DELETED its delete. A MODIFIED is its change from the
// event's Prev to its Object: the difference between two recorded
// versions. The replayer applies it onto the object as the target left it
// (replayer/writes.Rebase). So the target's own changes of other fields
// survive. A recording cannot tell the resourceVersion the recorded
// writer sent, so it never meets a 409 of the target's making. Nor can it
// tell whether a MODIFIED was the target's own write, when the target was
// recorded too: History.Writes and WithoutOwn below.
//
// # The recorded client's writes
//
// A recording made by wrapping a controller's rest.Config (recorder.Wrap) holds its writes too: creates,
// updates, patches and deletes, with their request bodies and answers. They are not list/watch history.
// Build lists them in History.Writes, in recorded order: verb, key, recorded code, the RV and UID the
// answer carried, user agent, field manager, where. It finds each stored write's echo: the event of its
// resource's log that is its own change. That is the event of its key at the RV its answer carried.
// kube-apiserver answers a create, an update or patch, and a delete that returns the object with the
// object at the write's etcd revision (k8s.io/apiserver/pkg/storage/etcd3/store.go Create,
// GuaranteedUpdate, conditionalDelete). Its watch event carries the same revision; a DELETED carries the
// deleted object at the deletion's (etcd3/watcher.go). A delete may be answered with a Status instead of
// the object (most kinds: registry/generic/registry/store.go finalizeDelete). Its echo is the next
// DELETED of its key and UID. An event recorded before the write was sent is no echo; an update that
// changes nothing answers with the state it found. An event echoes one write at most. A dry run or a
// refused write echoes nothing. Write.EchoRV and Write.Echo say which event it is.
//
// Build keeps the echoes in the log, as every other event: the history is
// the world as recorded, the client's objects in it. That is the truth for
// any other target replayed on the recording. A plain informer replayed on
// a controller's cassette must see the children the controller made. Else
// it would see changes of objects that never appeared. It is the truth for
// the verbatim replay of a reproducer too, whose streams carry the echoes.
// A replay to the recorded controller itself answers its writes anew. For
// it, WithoutOwn makes the history of the other actors. Each echo moves
// from Events to Log.Own: of every write, or of those a predicate picks,
// by user agent or field manager. The next event of its key changes from
// the echo's object (Event.Prev). So another actor's change is the
// difference from what the client wrote. Leaving them out is a choice of
// the replay, not of the recording: Build cannot know which target will be
// replayed.
//
// # Appending
//
// AppendEvents returns a history with events after the end of one log. It
// shares everything else with the history it came from: the other logs
// (the same *Log), and the log's Initial, Marks, earlier events and the
// states its memo computed. A log's versions share backing arrays that the
// newest one extends in place. Each version holds a clipped prefix, so an
// append to a version's slices copies. A second append to one history
// starts arrays of its own, copied once. An append costs O(events appended
// · log n), and the old history stays valid for its readers. Log.ObjectAt
// answers what StateAt(pos) holds under one key, from an index of each
// key's events, without building the state. An append that would change
// what the log already knows (an RV not after its last one, opaque RVs) is
// a ReplaceEvents.
//
// # Large recordings
//
// Build reads a watch stream left in its cassette file
// (cassette.WithLazyBodies) as it parses it. It parses its frames on every
// CPU. It shares each object's unchanged metadata between its versions.
// Once the objects read hold more than 64 MiB of JSON, it keeps their JSON
// in a temporary file mapped into memory (removed from its directory at
// once). What a history keeps in the Go heap per event is then its
// metadata, a few hundred bytes, whatever the objects' size. Where the file
// cannot be made or written (a full disk), the JSON stays in the heap
// instead.
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
