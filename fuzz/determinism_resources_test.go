package fuzz

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"

	"k8s.io/client-go/informers"

	"github.com/lwreplay/lwreplay/faults"
)

// twoInformers is a target with two informers of one factory, as a
// controller with a primary resource and one it owns. They are configmaps
// (the run's resource, whose handler the probe records) and pods.
var twoInformers = Target{Name: "two-informers", Doc: "configmaps and pods informers of one SharedInformerFactory", Run: func(ctx context.Context, env *Env) error {
	cs, err := env.Clientset()
	if err != nil {
		return err
	}
	f := informers.NewSharedInformerFactory(cs, 0)
	cms := f.Core().V1().ConfigMaps().Informer()
	pods := f.Core().V1().Pods().Informer()
	reg, err := env.Probe.AddEventHandler(cms, nil)
	if err != nil {
		return err
	}
	env.Probe.SetSynced(func() bool { return cms.HasSynced() && reg.HasSynced() && pods.HasSynced() })
	f.Start(ctx.Done())
	<-ctx.Done()
	f.Shutdown()
	return nil
}}

// perResource is what must repeat of a run of several resources: the
// verdict, the report and each resource's story, in resource order. (The
// resources' firings interleave as their goroutines happen to run.) Of a
// run stopped at the request bound, it is the verdict, the broken
// invariants and the signature.
func perResource(out *Outcome) string {
	by := map[string][]faults.Firing{}
	for _, fr := range out.Observation.Fired {
		by[fr.Point.Resource] = append(by[fr.Point.Resource], fr)
	}
	if out.Observation.HotLoop != nil {
		// the run was stopped at its request bound, which all resources share.
		// How many of the requests before it each resource sent, and whose
		// request crossed it, is goroutine order. So are the report's counts and
		// stack and the stories' counts.
		var broken []string
		for name, err := range out.Results {
			if err != nil {
				broken = append(broken, name)
			}
		}
		slices.Sort(broken)
		return fmt.Sprintf("failed %v, expected %v\nbroken: %v\nsignature: %s", out.Failed(), out.Expected, broken, out.Signature())
	}
	s := fmt.Sprintf("failed %v, expected %v\nreport: %s", out.Failed(), out.Expected, out.Report)
	for _, res := range slices.Sorted(maps.Keys(by)) {
		s += fmt.Sprintf("\nfired on %q: %s", res, faults.Story(by[res]))
	}
	return s
}

// TestDeterminismTwoResources re-runs a target that watches two resources
// at once under plans whose decisions act on both. Decision points are
// numbered per resource, so goroutine order cannot move where a fault
// lands. Every re-run has one verdict and one story.
func TestDeterminismTwoResources(t *testing.T) {
	reruns := rerunCount()
	inputs := planInputs(t, "close-watch:after=2,at=2 expire-watch:after=1,at=9", "http-error:code=503,at=0 stale-list:back=3,at=3 close-watch:after=1,at=6")
	// random plans, persistent decisions among them. Both reflectors back off
	// under a fault that keeps firing, at the same virtual instants. They draw
	// the same jitter whichever draws first (see harness's jitterRand).
	//
	// Not recreate. It takes the next resourceVersions of the one counter all
	// resources share, as etcd's revision is. So two resources' recreates at
	// one instant take them in the order their watches arrive
	// (docs/fuzzing.md, Determinism).
	//
	// Nor graceful-restart. A stop at one resource's request ends the
	// instance wherever its other resources' goroutines have got to. So their
	// points after it are numbered as those goroutines ran.
	r := rand.New(rand.NewPCG(21, 22))
	persistent := 0
	for len(inputs) < 4+8 {
		data := []byte{byte(r.UintN(2)), byte(r.UintN(2))}
		for range 12 {
			data = append(data, byte(r.UintN(128))|0x80)
		}
		p := faults.Decode(data[2:])
		if p.Has("recreate") || p.Has("graceful-restart") {
			continue
		}
		if slices.ContainsFunc(p.Decisions, func(d faults.Decision) bool { return d.Persistent }) {
			persistent++
		}
		inputs = append(inputs, namedInput{fmt.Sprintf("random plan %d", len(inputs)-4), data})
	}
	if persistent < 4 {
		t.Fatalf("random plans with a persistent decision: got %d of 8, want at least 4 (backoffs under a fault that keeps firing)", persistent)
	}
	for _, lvl := range []Level{Typed, Wire} {
		c, err := NewCampaign(Options{Cassettes: Glob("../cassettes/real-configmaps-pods-*.yaml"), Target: twoInformers, Level: lvl})
		if err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			t.Run(fmt.Sprintf("determinism two resources - %s, %s, %d runs - one verdict - pass", lvl, in.name, reruns), func(t *testing.T) {
				repeats(t, c, in.data, reruns, perResource)
			})
		}
	}
}
