package es

import (
	"testing"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/actors"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/replayer"
)

// cassettes are the recordings of Sieve's workload of
// elastic/cloud-on-k8s#5274 (e2e's TestRecordECKElasticsearch): an
// Elasticsearch created with count 2, scaled to 1, then back to 2;
// WatchList, and LIST in pages of 2 then WATCH.
var cassettes = fuzz.Glob("testdata/elasticsearch-*.yaml")

// cluster are the actors that stand in for the cluster under the
// operator: kube-controller-manager's StatefulSet controller (its pods),
// the scheduler (their nodes) and the kubelet (Running and Ready, with
// IPs). ECK waits for each StatefulSet's status.observedGeneration and
// pods (driver/stateful/expectations.go:39-45), and talks to
// Elasticsearch only once a pod runs (services/services.go:231-233).
func cluster(t testing.TB) []actor.Actor {
	acts, err := actors.Registry().Lookup("statefulset-controller", "scheduler", "kubelet")
	if err != nil {
		t.Fatal(err)
	}
	return acts
}

// masks are what same-outcome leaves out: what ECK makes from
// crypto/rand, which differs between two runs of one input.
var masks = []fuzz.Mask{
	{Resource: "secrets", Path: "data", Why: "ECK generates passwords, their hashes, CAs and certificates from crypto/rand"},
}

// options are the Elasticsearch fuzz options: the cassettes on both
// client paths, served at their recorded pace among the cluster's actors,
// with the user's invariant beside the built-in ones.
func options(t testing.TB, seen func(*fakeES)) fuzz.Options {
	return fuzz.Options{
		Cassettes: cassettes,
		Resource:  elasticsearches,
		Target:    target(t, seen),
		Actors:    cluster(t),
		Pace:      replayer.Pace{Mode: replayer.PaceRecorded},
		// No request latency. ECK asks for its ElasticsearchAutoscaler
		// kind, which no cassette serves, at each reconcile.
		// controller-runtime's RESTMapper then rereads discovery holding
		// its lock (client/apiutil/restmapper.go:167), and the other
		// reconciles wait on it (:153). A sync.RWMutex is no durable
		// block in a synctest bubble: with latency the clock cannot move
		// the holder's requests on, and the run spins (no-spin).
		Latency: -1,
		// Sieve's stale-state scenario serves every resource's N-th LIST
		// stale (list=N): the StatefulSet too, whose update then
		// conflicts. #5274's plan, the Elasticsearch alone stale, is
		// TestStaleRestart's. The scenarios' 50-odd plans run minutes of
		// virtual time each: the seeds run without them.
		Scenarios: false,
		Known:     crtarget.KnownFindings(),
		Masks:     masks,
		Extra:     []fuzz.Invariant{noScaleBelowCount},
	}
}

// FuzzElasticsearch fuzzes ECK's Elasticsearch controller on Sieve's
// workload of elastic/cloud-on-k8s#5274. go test runs its seeds: every
// cassette and client path, no fault.
func FuzzElasticsearch(f *testing.F) {
	fuzz.Run(f, options(f, nil))
}
