// Package fuzz runs real client-go code against replays perturbed by fault
// plans, in testing/synctest virtual time. The code is Reflector+DeltaFIFO,
// Reflector+RealFIFO, SharedIndexInformer, or a user's own target. It
// checks named invariants on what it observed. A failure is minimized and
// saved with a reproducer cassette.
//
// Typical use, in a _test.go file:
//
//	func FuzzMyController(f *testing.F) {
//		fuzz.Run(f, fuzz.Options{Cassettes: fuzz.Glob("testdata/cassettes/*.yaml"), Target: myTarget})
//	}
//
// Here myTarget is a Target whose Run builds the controller from
// env.Clientset() (informers of a SharedInformerFactory, at the run's
// level) or env.ListerWatcher(&corev1.ConfigMap{}). It registers its
// handler with env.Probe.AddEventHandler. That reports the handler's
// notifications and panics, the store and HasSynced to the probe.
// go test replays the seeds and the saved inputs; go test -fuzz explores.
// Campaign is one target's campaign without testing.F (Check judges one
// input). Explore runs campaigns on random inputs and groups their
// failures by Signature (the lwreplay fuzz command).
//
// fuzz is the driver; the packages under it hold the other roles, each
// importing only those below it:
//
//	fuzz          Run, Options, Campaign, Input, Explore, minimizing, reports
//	fuzz/targets  the built-in targets (Builtin, Lookup)
//	fuzz/harness  one run in a synctest bubble: Target, Env, Probe, Spec, Observe
//	fuzz/level    the clients at the typed or wire level
//	fuzz/oracle   Observation, Invariant, Judge, Signature, Known
//
// Target, Env, Probe, Gates, Level, Observation, Invariant, NewInvariant
// and Known are here too, under the names fuzz tests have always used.
package fuzz

import (
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/internal/cassettes"
	"github.com/lwreplay/lwreplay/fuzz/internal/engine"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/tune"
	"github.com/lwreplay/lwreplay/replayer"
)

// Options configure Run. The zero value (with Cassettes set) fuzzes the
// informer target over configmaps, both WatchList paths, legal faults only,
// and checks every invariant.
type Options struct {
	// Cassettes are the paths of the cassette files (or directories of
	// them) to replay; Glob lists the files of patterns. They load as
	// recordings (cassette.Group): each file is one cassette, one history,
	// but the parts a recorder rotated one recording into, given together,
	// are one. Byte 0 of an input picks one, in the order given.
	Cassettes []string
	// Recordings, when set, are the campaign's cassettes instead of
	// Cassettes. They are recordings loaded and built once (BuildRecordings)
	// for several campaigns. Those that recorded Resource are this one's, in
	// order.
	Recordings *Recordings
	// Salvage keeps the complete interactions of a cassette file cut short
	// (cassette.WithSalvage); false (the default) refuses such a file.
	Salvage bool
	// Target is the client-go code to run; zero means the "informer"
	// target.
	Target Target
	// WatchList fixes the client path; nil lets a byte of the input choose
	// it.
	WatchList *bool
	// Gates fixes client-go feature gates for every run. The input chooses
	// the others it can turn off: AtomicFIFO and InOrderInformersBatchProcess
	// (see InputLayout). Else they keep the process's values, on by default.
	// A bit whose gate the client-go in use does not know (AtomicFIFO before
	// v0.36) is ignored. A gate named here must be one that client-go knows
	// (ErrUnknownGate).
	Gates Gates
	// AllowBreaking keeps the breaking faults a plan decodes to; violations
	// after one fired are logged, not failed. False (the default) drops
	// them, so every violation is a failure.
	AllowBreaking bool
	// Invariants names the invariants to check; nil means all.
	Invariants []string
	// Resource is the resource to watch; zero means core v1 configmaps.
	Resource history.Resource
	// Extra are the user's own invariants, checked after the built-in
	// ones (see NewInvariant); Invariants may name them too.
	Extra []oracle.Invariant
	// Plans are the paths of saved plan files (faults.ParsePlan's YAML, as
	// a failure report's plan.yaml): each becomes a seed on every cassette
	// and client path. A plan must be one fuzz bytes can say (decisions
	// placed with at=, see faults.Encode).
	Plans []string
	// DecisionSeeds adds seeds that each place one legal decision on every
	// cassette and client path: every fault choice at each of
	// DecisionSeedPoints. So go test -fuzz starts from inputs that already
	// hold one decision, and one mutated byte combines a second with it. Each
	// seed is a run of every go test.
	DecisionSeeds bool
	// Scenarios runs Sieve's test plans (the Scenarios registry) from every
	// fault-free input, once per cassette, client path and gates. The input's
	// own run places each scenario's plans among the target's writes, LISTs
	// and watches:
	//   - a crash after its k-th write;
	//   - a restart at its w-th watch or after its k-th write, the fresh
	//     instance's LIST stale;
	//   - an object recreated while it is away from a watch.
	//
	// The input fails with the first plan that fails. For a controller, go
	// test's seeds then try, before go test -fuzz mutates anything:
	//   - a crash between any two of its first writes;
	//   - a restart onto a lagging apiserver;
	//   - an unobserved delete.
	//
	// A fuzzing worker runs a key's plans a few seconds an input at a time
	// (go test's engine gives an input 10 s). So there the plans are spread
	// over the key's first inputs.
	Scenarios bool
	// LiveBound is how long, in virtual time after the last fault fired, the
	// target may take to converge before the live invariant breaks. Zero means
	// 10 minutes (client-go's longest watch timeout).
	LiveBound time.Duration
	// MaxBurst is the most requests the target may make within a second
	// of virtual time before no-hot-loop breaks and the run ends; zero
	// means 200.
	MaxBurst int
	// MaxRate is the most requests a second the target may sustain over any
	// minute of virtual time before no-hot-loop breaks and the run ends. Zero
	// means 10; client-go makes about one a second while failing.
	MaxRate int
	// Known are findings known already, besides the shipped ones
	// (KnownFindings) of the client-go in use. A run whose signature one
	// matches is logged and counted, and neither fails nor stops the search.
	// KnownSignature makes one of a report's signature line.
	Known []oracle.Known
	// Masks are what only the user knows a correct target leaves to chance.
	// They are masked in same-outcome's comparisons on top of DefaultMasks and
	// the learned ones. Each, with why, is one of:
	//   - a field path of a resource (Mask.Path, list indices as [*]);
	//   - a field path of every resource (Resource AnyResource);
	//   - a resource as a whole (Path "").
	//
	// A masked difference hides no other: a bug that also differs elsewhere
	// still fires.
	Masks []Mask
	// ReportKnown names known findings to report as failures again: shipped
	// ones ("kubernetes#140890") or ones of Known. Under go test,
	// ReportKnownEnv adds to it.
	ReportKnown []string
	// Level is the level exploration runs at; zero means Typed, whose
	// violations are confirmed at the wire level before they are
	// reported.
	Level Level
	// Pace is the pace every run replays its cassette at. Zero means
	// replayer.PaceMax: every recorded change has happened before the target
	// starts. replayer.PaceRecorded serves the recorded changes at their
	// recorded offsets in virtual time. So a controller's writes interleave
	// with the other actors' (see docs/replayer.md, "The recorded history is
	// the other actors").
	Pace replayer.Pace
	// Latency is how long, in virtual time, each of the target's requests
	// takes to reach the replay. Zero means replayer.DefaultLatency (1 ms),
	// negative none (see harness.Latency). Reports record it.
	Latency time.Duration
	// ExpectOwn says the cassettes' recorded writes are the target's own: it
	// was recorded through recorder.Wrap. Their echoes are left out of the
	// replay (history.WithoutOwn) and expected from the target. The other
	// actors' recorded changes are served as their writes onto what the target
	// writes (docs/replayer.md, "Recording a controller"). False (the default)
	// replays the recording as it was, the recorded client's objects in it.
	ExpectOwn bool
	// Actors are the cluster's own controllers every run of the campaign
	// starts beside the target, chosen per campaign: the actors module's
	// actors.Registry().Lookup("kube-controller-manager", "kubelet")
	// gives them. Reference runs have them too. Their writes are in the
	// served history, not the target's write log; the recorded objects
	// they take over are theirs (harness.Spec.Actors). Reports name them.
	Actors []actor.Actor
	// FaultsOnActors makes every plan act on the actors' requests too
	// (harness.Spec.FaultsOnActors): Sieve's stale state for the target,
	// made by the cluster's controllers. Off: faults strike the target
	// only.
	FaultsOnActors bool
}

// fuzzCassette is one cassette loaded for a fuzz run.
type fuzzCassette = cassettes.Cassette

// Run fuzzes o.Target against the cassettes o.Cassettes names. It loads
// every cassette once and adds seeds per cassette: that cassette, no
// fault, one per WatchList path when o.WatchList is nil. Then it runs the
// target once per input (see Campaign.Check for what an input means).
//
// A run that breaks an invariant fails with a report. The report names the
// invariant, cassette, path, plan and what fired, and gives the input to
// replay. It points at the report files and reproducer written for it.
// When a breaking fault fired, the violation is only logged.
//
// Under a libFuzzer build (go-118-fuzz-build), f is that build's testing
// shim, not *testing.F. Run then runs the one input the shim holds (see
// runLibFuzzer).
func Run(f F, o Options) {
	f.Helper()
	tf, ok := f.(*testing.F)
	if !ok {
		runLibFuzzer(f, o)
		return
	}
	runGoTest(tf, o)
}

// runGoTest is Run under go test.
func runGoTest(f *testing.F, o Options) {
	f.Helper()
	c, err := NewCampaign(reportKnownFromEnv(o))
	if err != nil {
		f.Fatal(err)
	}
	for _, seed := range c.Seeds() {
		f.Add(seed)
	}
	mode, start := engine.Current(), time.Now()
	if mode == engine.Worker {
		tune.GC() // a worker's runs allocate much and keep little, as a campaign's
		tune.WorkerProcs()
		engine.KeepCrashOutput(f.Name())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if mode == engine.Worker {
			defer engine.NoteSlowInput(f.Name(), data)()
		}
		out := c.Check(t, data)
		for _, k := range out.KnownScenarios {
			t.Logf("scenario %s (judged nothing: not a failure)", k)
		}
		switch {
		case out.OutOfTime:
			dir := undecidedDir(t, f.Name())
			err := engine.SaveInput(dir, data)
			t.Skipf("the input ran out of a worker's time (%v of real time; a loaded machine) and was judged nothing; kept for go test -run in %s (%v)", engine.InputBudget, dir, err)
		case out.Unconfirmed != "":
			t.Logf("a violation its confirming run did not repeat (not a failure):\n%s", out.Unconfirmed)
		case out.Report == "":
		case out.Known != "":
			t.Logf("known finding %s (judged nothing: not a failure):\n%s", out.Known, out.Report)
		case out.Expected:
			t.Logf("expected under breaking fault %s:\n%s", strings.Join(out.Breaking, ", "), out.Report)
		case mode == engine.Worker:
			// The engine re-runs and minimizes this input, or drops it:
			// the report is written for the input it keeps. The failure is
			// noted for the coordinator, should its run for the report not
			// repeat it.
			engine.NoteWorkerFailure(f.Name(), data, out.Report)
			t.Fatalf("target %s broke invariants:\n%s\n(lwreplay writes the report once go test has minimized and saved the input)", c.target.Name, out.Report)
		default:
			c.Fail(t, out)
		}
	})
	if mode == engine.Coordinator && f.Failed() {
		c.reportSaved(f, start)
	}
	if mode == engine.Coordinator {
		engine.RemoveEmptyCrashes(f.Name())
		dir := undecidedDir(f, f.Name())
		if n := engine.CountSince(dir, start); n > 0 {
			f.Logf("lwreplay: %d inputs ran out of a worker's time (%v of real time each) and were judged nothing; they are kept in %s: copy them into testdata/fuzz/%s and go test -run=%s judges them", n, engine.InputBudget, dir, f.Name(), f.Name())
		}
	}
}

// resourceOf is the resource o asks for.
func resourceOf(o Options) history.Resource {
	if o.Resource == (history.Resource{}) {
		return harness.ConfigMaps
	}
	return o.Resource
}

// planText is the plan's text form, or "no fault" when it is empty.
func planText(p faults.Plan) string {
	if len(p.Decisions) == 0 {
		return "no fault"
	}
	return p.String()
}
