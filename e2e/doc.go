// Package e2e holds lwreplay's end-to-end tests. They record the list/watch
// traffic of a real kube-apiserver and etcd (started on loopback by
// internal/cluster). They record with `lwreplay record` and the recorder
// transport. They replay every recording with the replayer, and compare
// what clients see with what the real server holds. TestClientNodeInformer
// runs a client in another language, the official JavaScript client's
// informer (clientnode/informer.mjs, installed by install-client-node.sh),
// against `lwreplay serve` over HTTPS.
//
// The tests that need the cluster skip, loudly, only when its binaries
// cannot be built on this machine. Under `go test -short` they skip
// quietly. TestShippedCassettes, which needs none, still runs.
// TestClientNodeInformer skips loudly when node or npm is missing or the
// install fails, quietly under -short. `go test ./e2e -e2e.ship` also
// copies the recordings into the repository's cassettes/ directory as
// real-*.yaml. `go test ./e2e -update` rewrites the golden files of the
// real kube-apiserver. They are the write transcript
// (testdata/writes/transcript.json), and the children controller's
// recording that examples/children replays to it (TestRecordController:
// ../examples/children/testdata/recorded.yaml). An ordinary run writes
// only to temporary directories, and compares.
package e2e
