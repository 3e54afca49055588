// Package replayer is a model kube-apiserver: it answers any legal LIST or
// WATCH request from a recorded history, the way kube-apiserver would, so
// that unmodified client-go reflectors, informers and kubectl run against it
// and converge to the recorded final state.
//
// The same handler has two faces: an http.Handler for a real server
// (lwreplay serve) and an in-process http.RoundTripper whose bodies are fed
// through pipes, with no sockets, so that client code can run inside a
// testing/synctest bubble where timeouts, bookmarks and backoffs pass in
// virtual time.
//
// Typical use:
//
//	h, err := history.Build(files...)
//	srv := replayer.New(h)
//	cfg := &rest.Config{Host: "http://replay", Transport: srv.Transport()}
//	client := kubernetes.NewForConfigOrDie(cfg)
//
// The server's clock starts at New. Under the default pace (max) no event
// waits: a watch sends every event after its resourceVersion as fast as the
// client reads. What a LIST with resourceVersion "" sees is the state at the
// server's head: the newest position any answer has reached, so a fresh
// client lists the initial state and then watches every event.
//
// # Where things live
//
// This package is the core: it answers LIST (list.go, continue.go,
// selectors.go, snapshot.go, compaction.go), WATCH and WatchList
// (watch.go, watchlist.go, stream.go, kindcache.go) and GET (get.go) from
// the history, with kube-apiserver's Status answers for its errors
// (status.go), under its options (options.go), with its HTTP face
// (serve.go, endpoint.go) and its in-process one (transport.go; an
// actor's, TransportAs, in actor_requests.go); it tells
// what it has served (exhausted.go, listings.go), notes request storms
// (storm.go, storm_server.go) and acts out fault plans (faults_*.go, see
// Fault actuation). What the core calls for the rest of a request
// lives in packages below it, which never import it:
//
//   - replayer/discovery: the discovery answers (/version, /api, /apis,
//     ...), built from the recorded ones and the resources the server
//     serves; discovery.go here asks it and writes the answer.
//   - replayer/table: server-side Tables (kubectl's printing): the Accept
//     negotiation, the default and CustomResourceDefinition convertors,
//     rendering; table.go here picks a request's view, its resource's
//     convertor and a recorded page. metadata.go, beside it, answers
//     metadata-only requests (as=PartialObjectMetadata[List], client-go's
//     metadata client) with each object's recorded "metadata" field.
//   - replayer/verbatim: verbatim replay of reproducer cassettes (lwreplay
//     mutate writes them), a handler of its own beside the Server.
//   - replayer/internal/inproc: the in-process transport and its pipe,
//     which the Server and a verbatim replay share.
//   - replayer/internal/status: kube-apiserver's Status answers, which
//     both write.
//
// # Fault actuation
//
// Fault actuation (WithPlan) lives in this package, in the files named
// faults_*.go: faults_plan.go numbers the decision points and records what
// fired, faults_effects.go is the table of what each fault does at which
// kind of point, and faults_list.go, faults_watch.go, faults_frame.go and
// faults_history.go act at LIST answers, at a watch when it opens, at a
// frame boundary and on the history served. It stays in the core because
// it acts on the core's own state, not through an interface of it: a fault
// answers a LIST with the core's continue tokens and Status answers, moves
// the compaction point, rewrites the history served together with the
// heads of every log under the server's lock (recreate, opaque-rv), and
// drives an open watch stream's position, frame writer and timers (reorder,
// delay, reset). A package of its own would have to import the core, which
// calls it at every decision point, or have the core export all of that.
package replayer
