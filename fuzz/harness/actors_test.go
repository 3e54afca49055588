package harness

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// readingTarget is an informer of configmaps that writes nothing.
func readingTarget() Target {
	return Target{Name: "reading", Doc: "an informer of configmaps", Run: func(ctx context.Context, env *Env) error {
		cs, err := env.Clientset()
		if err != nil {
			return err
		}
		factory := informers.NewSharedInformerFactory(cs, 0)
		inf := factory.Core().V1().ConfigMaps().Informer()
		if _, err := env.Probe.AddEventHandler(inf, nil); err != nil {
			return err
		}
		factory.Start(ctx.Done())
		defer factory.Shutdown()
		cache.WaitForCacheSync(ctx.Done(), inf.HasSynced)
		<-ctx.Done()
		return nil
	}}
}

// labelled reports whether o carries the labelling actor name's label.
func labelled(o *history.Object, name string) bool {
	return o != nil && o.Labels[testutil.ActorLabel] == name
}

// TestActors runs a labelling actor (testutil.LabellingActor) beside a
// target. It checks that the actor:
//   - starts once and outlives the target's crashes;
//   - labels every configmap of the served history by writes that are not
//     the target's (none in its write log or requests, no fault numbering
//     them);
//   - has its Run return at the run's end with its context done.
func TestActors(t *testing.T) {
	h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
	tests := []struct {
		name      string
		target    Target
		plan      string
		watchList bool
		crashes   int
		restarts  int
		onActors  bool // Spec.FaultsOnActors: the plan's first watch is the actor's (its WatchList), who started first
	}{
		{name: "actors - a labelling actor beside a reading target, WatchList - every configmap labelled, no write the target's - pass",
			target: readingTarget(), watchList: true},
		{name: "actors - a labelling actor beside a reading target, LIST+WATCH - every configmap labelled, no write the target's - pass",
			target: readingTarget()},
		{name: "actors - a plan that crashes the target after its first write, the target writes nothing - no fault at the actor's writes - pass",
			target: readingTarget(), plan: "crash-after-write:write=1", watchList: true},
		{name: "actors - a plan that fails the second LIST, the target makes one - no fault at the actor's LIST - pass",
			target: readingTarget(), plan: "http-error:code=500,list=2"},
		{name: "actors - a plan that closes the first watch, faults on actors - the actor's watch closed, not the target's, and it watches again - pass",
			target: readingTarget(), plan: "close-watch:watch=1", onActors: true},
		{name: "actors - the annotating target crashed after its first write - the actor runs on, started once - pass",
			target: annotatingTarget(), plan: "crash-after-write:write=1", watchList: true, crashes: 1},
		{name: "actors - the annotating target restarted at its WatchList - the actor runs on, started once - pass",
			target: annotatingTarget(), plan: "graceful-restart:watch=1", watchList: true, restarts: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			plan, err := faults.ParseText(tc.plan)
			if err != nil {
				t.Fatalf("plan %q: got %v, want none", tc.plan, err)
			}
			a, log := testutil.LabellingActor("labeller", nil)
			obs := Observe(t, Spec{History: h, Plan: plan, Target: tc.target, WatchList: tc.watchList, Watchdog: 2 * time.Minute, Actors: []actor.Actor{a},
				FaultsOnActors: tc.onActors})
			if obs == nil {
				t.Fatal("observation: got nil, want one")
			}
			if !slices.Equal(obs.Actors, []string{"labeller"}) || len(obs.ActorErrors) > 0 {
				t.Errorf("actors: got %v, errors %v, want [labeller] and none", obs.Actors, obs.ActorErrors)
			}
			starts, returns, ctxDone, patched := log.Counts()
			slices.Sort(patched)
			done := slices.Compact(patched) // a key patched again, its label set already, changes nothing
			if starts != 1 || returns != 1 || !ctxDone {
				t.Errorf("actor's Run: got %d starts, %d returns, context done %v, want 1, 1, true (it outlives the target, returns at the run's end)",
					starts, returns, ctxDone)
			}
			final := obs.TruthLog.StateAt(obs.TruthLog.End())
			for _, o := range final {
				if !labelled(o, "labeller") {
					t.Errorf("final %s: got labels %v, want %s=labeller", o.Key(), o.Labels, testutil.ActorLabel)
				}
			}
			if len(done) != len(final) {
				t.Errorf("configmaps the actor labelled: got %d, want the %d of the final state", len(done), len(final))
			}
			if obs.LeftGoroutines > 0 {
				t.Errorf("goroutines left: got %d (%s), want none", obs.LeftGoroutines, obs.LeftStack)
			}
			if obs.ConvergedAt < 0 {
				t.Errorf("converged at: got %v, want the target's store to reach the labelled state", obs.ConvergedAt)
			}
			for name, err := range oracle.Judge(obs) {
				if err != nil && !errors.Is(err, oracle.ErrNotJudged) {
					t.Errorf("%s: got %v, want it to hold", name, err)
				}
			}
			if len(obs.Restarts) != tc.restarts {
				t.Errorf("restarts: got %v, want %d", obs.Restarts, tc.restarts)
			}
			if tc.crashes+tc.restarts == 0 && !tc.onActors && len(obs.Fired) > 0 {
				t.Errorf("fired: got %v, want none (the actor's writes are not the target's)", obs.Fired)
			}
			if tc.onActors {
				if len(obs.Fired) != 1 {
					t.Errorf("fired: got %v, want the one fault, at the actor's LIST", obs.Fired)
				}
				// the actor's watch opens before the target's: a fault seen
				// before the target's first WATCH struck the actor (without
				// the option it strikes that WATCH)
				i := slices.IndexFunc(obs.Requests, func(r observe.Request) bool { return r.Verb == "WATCH" })
				if i < 0 || obs.LastFaultAt < 0 || obs.LastFaultAt >= obs.Requests[i].At {
					t.Errorf("fault seen at %v, target's requests %v: want it before the target's first WATCH (the actor's watch struck)", obs.LastFaultAt, obs.Requests)
				}
			}
			if len(obs.Crashes) != tc.crashes {
				t.Errorf("crashes: got %v, want %d", obs.Crashes, tc.crashes)
			}
			// the actor's writes are in the served history, not the target's
			byActor := 0
			for _, e := range obs.TruthLog.Events {
				if labelled(e.Object, "labeller") && !labelled(e.Prev, "labeller") {
					byActor++
					if name, ok := e.ByActor(); !ok || name != "labeller" {
						t.Errorf("event %s %s@%s: got it from %q, want the actor's (%s)", e.Type, e.Object.Key(), e.RV(), e.From.File, history.ActorWrite("labeller"))
					}
				}
			}
			if byActor != len(done) {
				t.Errorf("events labelling a configmap: got %d, want %d (the actor's patches)", byActor, len(done))
			}
			for _, w := range obs.Writes {
				if w.Verb == "patch" {
					t.Errorf("target's write log: got %v, want none of the actor's patches", w)
				}
			}
			for _, r := range obs.Requests {
				if r.Verb == "PATCH" {
					t.Errorf("target's requests: got %v, want none of the actor's", r)
				}
			}
		})
	}
}

// cannotStartEnv makes TestActorCannotStart's child run the failing run.
const cannotStartEnv = "LWREPLAY_ACTOR_CANNOT_START"

// TestActorCannotStart runs an actor whose Run returns an error at once,
// in a child test process. The run ends at once, its Observation says why,
// and the run's test fails naming the actor.
func TestActorCannotStart(t *testing.T) {
	if os.Getenv(cannotStartEnv) != "" {
		h := testutil.MustHistory(t, testutil.Shipped("synthetic-configmaps-pods.yaml"))
		a, _ := testutil.LabellingActor("broken", errors.New("cannot reach the cluster"))
		obs := Observe(t, Spec{History: h, Target: readingTarget(), WatchList: true, Actors: []actor.Actor{a}})
		fmt.Printf("actor errors: %q\nended at: %v\n", obs.ActorErrors, obs.EndedAt)
		return
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestActorCannotStart$", "-test.short")
	cmd.Env = append(os.Environ(), cannotStartEnv+"=1")
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 {
		t.Fatalf("child: got error %v, want exit status 1 (a failed test)\n%s", err, out)
	}
	for _, want := range []string{
		`actor errors: ["actor broken: Run returned at 0s: cannot reach the cluster"]`,
		"actors: got actor broken: Run returned at 0s: cannot reach the cluster, want each to run until the run's end (the run's setup failed, not the target)",
		// at once (the target starts once the actor's first request could
		// be answered), and the minute the target is given to stop
		fmt.Sprintf("ended at: %v\n", Latency(0)+actorOffset(0)+observe.StopGrace),
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("child's output: got\n%s\nwant it to hold %q", out, want)
		}
	}
}
