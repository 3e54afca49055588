package fuzz

import (
	"fmt"

	"github.com/lwreplay/lwreplay/actor"
	"github.com/lwreplay/lwreplay/fuzz/harness"
)

// checkActors checks Options.Actors: each named, once, with a Run.
func checkActors(actors []actor.Actor) error {
	seen := map[string]bool{}
	for _, a := range actors {
		if a.Name == "" || a.Run == nil || seen[a.Name] {
			return fmt.Errorf("%w: actor %q: want a unique name and a Run", harness.ErrTarget, a.Name)
		}
		seen[a.Name] = true
	}
	return nil
}

// actorNames returns the actors' names, in order.
func actorNames(actors []actor.Actor) []string {
	out := make([]string, len(actors))
	for i, a := range actors {
		out[i] = a.Name
	}
	return out
}
