package fuzz

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// errActorLabel is what noActorLabel returns.
var errActorLabel = errors.New("a configmap carries the actor's label")

// noActorLabel is a user invariant that fails a run whose served
// configmaps end with testutil.ActorLabel. A run with the labelling actor
// breaks it; a run without holds it.
var noActorLabel = oracle.NewInvariant("no-actor-label", "no configmap ends labelled by an actor",
	func(truth *history.Log, _ *observe.Observation) error {
		for _, o := range truth.StateAt(truth.End()) {
			if v, ok := o.Labels[testutil.ActorLabel]; ok {
				return fmt.Errorf("%w: %s by %s", errActorLabel, o.Key(), v)
			}
		}
		return nil
	})

// TestActorsCampaign runs a campaign with and without Options.Actors: its
// runs start the actors (their writes reach the served history), its
// observations and reports name them.
func TestActorsCampaign(t *testing.T) {
	labeller, _ := testutil.LabellingActor("labeller", nil)
	tests := []struct {
		name   string
		actors []actor.Actor
		fails  bool
	}{
		{name: "actors campaign - the labelling actor - every configmap labelled, the report names it - fail", actors: []actor.Actor{labeller}, fails: true},
		{name: "actors campaign - no actor - no configmap labelled - pass"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCampaign(Options{Cassettes: []string{"../cassettes/synthetic-configmaps-pods.yaml"}, Actors: tc.actors,
				Invariants: []string{"converged", "no-actor-label"}, Extra: []oracle.Invariant{noActorLabel}})
			if err != nil {
				t.Fatalf("NewCampaign: got error %v, want none", err)
			}
			out := c.Check(t, []byte{0, 1})
			if got := out.Failed(); got != tc.fails {
				t.Fatalf("failed: got %v (%s), want %v", got, out.Report, tc.fails)
			}
			if got, want := out.Observation.Actors, actorNames(tc.actors); !slices.Equal(got, want) {
				t.Errorf("observation's actors: got %v, want %v", got, want)
			}
			if tc.fails && !strings.Contains(out.Report, "actors: labeller (the cluster's own controllers beside the target)\n") {
				t.Errorf("report: got\n%s\nwant it to name the actors", out.Report)
			}
			if tc.fails && out.Results["converged"] != nil {
				t.Errorf("converged: got %v, want it to hold (the target's store follows the actor's writes)", out.Results["converged"])
			}
		})
	}
}

// TestActorsOptions checks Options.Actors: each named once, with a Run.
func TestActorsOptions(t *testing.T) {
	labeller, _ := testutil.LabellingActor("labeller", nil)
	run := func(context.Context, actor.Env) error { return nil }
	tests := []struct {
		name   string
		actors []actor.Actor
		err    error
	}{
		{name: "actors options - one labelling actor - pass", actors: []actor.Actor{labeller}},
		{name: "actors options - an actor without a name - fail", actors: []actor.Actor{{Run: run}}, err: harness.ErrTarget},
		{name: "actors options - an actor without a Run - fail", actors: []actor.Actor{{Name: "idle"}}, err: harness.ErrTarget},
		{name: "actors options - one name twice - fail", actors: []actor.Actor{labeller, labeller}, err: harness.ErrTarget},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewCampaign(Options{Cassettes: []string{"../cassettes/synthetic-configmaps-pods.yaml"}, Actors: tc.actors})
			if !errors.Is(err, tc.err) {
				t.Errorf("NewCampaign: got error %v, want %v", err, tc.err)
			}
		})
	}
}

// observed is what must repeat of a run with actors, besides its verdict:
//   - the final state of the run's resource (each object's labels,
//     annotations and data);
//   - how many events each writer made;
//   - the target's store keys;
//   - how many deliveries, requests and writes it had;
//   - when it synced, converged and ended.
//
// Not the order of the actors' writes. A real controller's informer hands
// it objects in map order (client-go's WatchList fills a temporary store).
// So which object gets which resourceVersion is not the input's. The
// labelling actor patches in key order; the count and times of its writes
// are the input's.
func observed(out *Outcome) string {
	obs := out.Observation
	var b strings.Builder
	fmt.Fprintf(&b, "%s\nactors %v, errors %v\n", verdict(out), obs.Actors, obs.ActorErrors)
	for _, o := range obs.TruthLog.StateAt(obs.TruthLog.End()) {
		var content struct {
			Metadata struct {
				Labels, Annotations map[string]string
			}
			Data map[string]string
		}
		if err := json.Unmarshal(o.Raw, &content); err != nil {
			fmt.Fprintf(&b, "final %s: %v\n", o.Key(), err)
			continue
		}
		fmt.Fprintf(&b, "final %s: %v %v %v\n", o.Key(), content.Metadata.Labels, content.Metadata.Annotations, content.Data)
	}
	writers := map[string]int{}
	for _, e := range obs.TruthLog.Events {
		writers[e.From.File]++
	}
	keys := slices.Sorted(maps.Keys(obs.Store))
	fmt.Fprintf(&b, "events by writer %v\nstore %v\n", writers, keys)
	fmt.Fprintf(&b, "%d deliveries, %d requests, %d writes; synced %v, converged %v, ended %v (early %v)\n",
		len(obs.Deliveries), len(obs.Requests), len(obs.Writes), obs.SyncedAt, obs.ConvergedAt, obs.EndedAt, obs.EndedEarly)
	return b.String()
}

// TestDeterminismActors re-runs inputs with the labelling actor 20 times
// ($LWREPLAY_RERUNS when more): no fault and a plan, on each client path.
// It wants the same observation every time: a run with actors is a
// function of its input.
func TestDeterminismActors(t *testing.T) {
	labeller, _ := testutil.LabellingActor("labeller", nil)
	c, err := NewCampaign(Options{Cassettes: []string{"../cassettes/synthetic-configmaps-pods.yaml"}, Actors: []actor.Actor{labeller}})
	if err != nil {
		t.Fatal(err)
	}
	reruns := max(20, rerunCount())
	inputs := append([]namedInput{{"no fault, WatchList", []byte{0, 1}}, {"no fault, LIST", []byte{0, 0}}},
		planInputs(t, "http-error:code=500,at=0 close-watch:after=5,at=2")...) // both fire on each path
	for _, in := range inputs {
		t.Run(fmt.Sprintf("determinism actors - %s, %d runs - one observation - pass", in.name, reruns), func(t *testing.T) {
			repeats(t, c, in.data, reruns, observed)
		})
	}
}
