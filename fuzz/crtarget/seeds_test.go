package crtarget_test

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/crtarget"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

// shipped are the shipped cassettes every manager test replays.
const shipped = "../../cassettes/*.yaml"

// Resources the manager tests read in the served history, besides the
// run's (configmaps).
var (
	secrets = history.Resource{Version: "v1", Resource: "secrets", Kind: "Secret", Namespaced: true}
	pods    = history.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
	leases  = history.Resource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases", Kind: "Lease", Namespaced: true}
)

// eachSeed runs target on every shipped cassette, both client paths, no
// fault. Each run is a subtest named "<thing> - seed <input> - <want> -
// pass". crtarget's invariants are checked besides the built-in ones.
// It hands check the outcome and the real time the run took.
func eachSeed(t *testing.T, target fuzz.Target, thing, want string, check func(t *testing.T, out *fuzz.Outcome, real time.Duration)) {
	t.Helper()
	c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: fuzz.Glob(shipped), Target: target, Extra: crtarget.Invariants()})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(c.Cassettes()); n < 4 {
		t.Fatalf("got %d shipped cassettes, want the 4 of cassettes/", n)
	}
	for i := range c.Cassettes() {
		for _, wl := range []byte{0, 1} {
			in := []byte{byte(i), wl}
			t.Run(fmt.Sprintf("%s - seed %q - %s - pass", thing, in, want), func(t *testing.T) {
				start := time.Now()
				out := c.Check(t, in)
				check(t, out, time.Since(start))
			})
		}
	}
}

// finalState returns the served final state of res by key (empty when
// the run served nothing of it).
func finalState(obs *observe.Observation, res history.Resource) map[string]*history.Object {
	out := map[string]*history.Object{}
	l, ok := obs.Served.Log(res)
	if !ok {
		return out
	}
	for _, o := range l.StateAt(l.End()) {
		out[o.Key()] = o
	}
	return out
}

// storedWrites counts the run's stored writes of res with verb, by key.
func storedWrites(obs *observe.Observation, res history.Resource, verb string) map[string]int {
	out := map[string]int{}
	for _, w := range obs.Writes {
		if w.Stored() && w.Verb == verb && w.Resource.ID() == res.ID() {
			out[w.Key]++
		}
	}
	return out
}

// objectMeta is the part of an object's JSON the manager tests read.
type objectMeta struct {
	Metadata struct {
		UID             string `json:"uid"`
		OwnerReferences []struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Name       string `json:"name"`
			UID        string `json:"uid"`
			Controller *bool  `json:"controller"`
		} `json:"ownerReferences"`
	} `json:"metadata"`
	Spec struct {
		HolderIdentity *string `json:"holderIdentity"`
	} `json:"spec"`
}

// parse reads o's JSON into an objectMeta.
func parse(t *testing.T, o *history.Object) objectMeta {
	t.Helper()
	var m objectMeta
	if err := json.Unmarshal(o.Raw, &m); err != nil {
		t.Fatalf("object %s: got %v, want its JSON", o.Key(), err)
	}
	return m
}

// allHold fails t with the report of each invariant out broke.
func allHold(t *testing.T, out *fuzz.Outcome) {
	t.Helper()
	if out.Failed() {
		t.Fatalf("got a failure, want none:\n%s", out.Report)
	}
}
