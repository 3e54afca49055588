// Package replayer is a model kube-apiserver. It answers any legal request
// of a client from a recorded history, the way kube-apiserver would: LIST,
// WATCH and GET, the writes, discovery and OpenAPI. Unmodified client-go
// reflectors, informers, controllers and kubectl run against it and
// converge to the recorded final state.
//
// The same handler has two faces. One is an http.Handler for a real server
// (lwreplay serve). The other is an in-process http.RoundTripper whose
// bodies are fed through pipes, with no sockets. Client code can then run
// inside a testing/synctest bubble, where timeouts, bookmarks and backoffs
// pass in virtual time.
//
// Typical use:
//
//	h, err := history.Build(files...)
//	srv := replayer.New(h)
//	cfg := &rest.Config{Host: "http://replay", Transport: srv.Transport()}
//	client := kubernetes.NewForConfigOrDie(cfg)
//
// The server's clock starts at New. Under the default pace (max) no event
// waits: a watch sends every event after its resourceVersion as fast as
// the client reads. A LIST with resourceVersion "" sees the state at the
// head: the newest position any answer has reached. So a fresh client
// lists the initial state and then watches every event.
//
// # Who owns what
//
// Four types share the work, as etcd splits its mvcc store from its apply
// path. Each owns its state and the lock that guards it.
//
//   - Server (server.go) routes each request to its answer. It holds the
//     other three and owns no lock.
//   - store (store.go) owns the served state: the served history, in one
//     place with a plan or without. Beside it, per resource, the head, the
//     paced position, the compaction point, the first listing, and the
//     discovery document. Its lock guards all of them. Other code reads
//     and changes them only through its methods.
//   - engine (engine.go) is the write path. It answers writes and makes
//     every change of the served history, one at a time under its lock.
//     It holds the other actors' recorded changes, the garbage
//     collector's watch list and the write log; the last two have locks
//     of their own.
//   - faultRun (faults_plan.go) is a fault plan being acted out: the
//     points reached and what fired, under its lock. What a fault does to
//     the served history goes through the store or the engine.
//
// Smaller types own their own locks: restarts (what apiserver-restart
// left), stormDetector, the recreations memo, the discovery memo and the
// kind cache.
//
// # Where things live
//
// Routing and the served state:
//
//   - server.go: Server, New and ServeHTTP, which routes every request.
//   - store.go: the store, and the changes of the served history it takes.
//   - positions.go: the pace and the heads, what may be served now.
//   - compaction.go: the compaction point of each resource.
//   - snapshot.go: which state a read's resourceVersion picks.
//   - options.go: the options and the pace; hooks.go: the run's Hooks.
//
// Reads:
//
//   - list.go, continue.go, selectors.go: LIST, its pages and continue
//     tokens, and the selectors.
//   - listings.go: a LIST answered, and the first complete listings.
//   - watch.go, watchlist.go, stream.go, kindcache.go: WATCH and
//     WatchList, their frames, and each object with its kind.
//   - get.go: GET of one object, its status and scale.
//   - table.go, metadata.go: Table and metadata-only answers.
//   - discovery.go, crd.go, openapi.go: discovery, the custom resources'
//     kinds and names, and OpenAPI.
//   - exhausted.go, served.go: what has been served.
//   - status.go: kube-apiserver's Status answers.
//
// The write path:
//
//   - engine.go: the engine, and a write placed in the served history.
//   - write.go: the HTTP face of a write, and the events it makes.
//   - write_state.go: the state a write sees.
//   - writelog.go: the write log (Writes).
//   - actors.go: recorded changes served as other actors' writes.
//   - gc.go: the garbage collector's model.
//   - unrecorded.go: empty logs of resources the history does not record.
//   - recreate.go: a recreate fault's rewrite of the history.
//   - actor_requests.go: the other actors' requests (TransportAs).
//
// Faces and warnings:
//
//   - transport.go: the in-process transport.
//   - serve.go, endpoint.go: the HTTP face.
//   - storm.go, storm_server.go: request-storm detection.
//
// # Fault actuation
//
// Fault actuation (WithPlan) lives in the files named faults_*.go:
//   - faults_plan.go numbers the decision points and records what fired;
//   - faults_effects.go is the table of what each fault does at which kind
//     of point;
//   - faults_list.go, faults_watch.go, faults_frame.go and faults_write.go
//     act at LIST answers, at a watch when it opens, at a frame boundary
//     and at a write;
//   - faults_history.go rewrites the served history (opaque-rv);
//   - faults_restart.go restarts the apiserver.
//
// Fault actuation stays in this package because it acts on the core's
// own state, not through an interface. A fault answers with the core's
// continue tokens and Status answers. It moves compaction points and
// rewrites the served history. It drives an open watch stream's position,
// frame writer and timers. A package of its own would have to import the
// core, which calls it at every decision point.
//
// # Packages below
//
// What the core calls for the rest of a request lives in packages below
// it, which never import it:
//
//   - replayer/writes: one write answered with kube-apiserver's rules, on
//     a state and stamps the engine gives it. It is pure.
//   - replayer/discovery: the discovery answers (/version, /api, /apis),
//     from the recorded ones and the resources served.
//   - replayer/openapi: the OpenAPI documents, for kubectl's validation.
//   - replayer/table: server-side Tables: the Accept negotiation, the
//     convertors, the rendering.
//   - replayer/verbatim: verbatim replay of reproducer cassettes, a
//     handler of its own beside the Server.
//   - replayer/internal/inproc: the in-process transport and its pipe,
//     which the Server and a verbatim replay share.
//   - replayer/internal/status: kube-apiserver's Status answers, which
//     both write.
package replayer
