package oracle

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

// ErrDiffersFromReference says a run's end state differs from the
// reference runs' (same-outcome). It may hold an object more or less, or
// a field that differs outside the masks. Or the target created or
// deleted an object a different number of times.
var ErrDiffersFromReference = errors.New("end state differs from the reference run")

// FinalState is the end state of a served history. The differential
// oracle (same-outcome) compares it with a reference run's. It holds
// every log of the history, per resource, not only the one the target
// watched.
type FinalState struct {
	// Resources holds each resource's end state, by resource name
	// (history.Resource.Name: "configmaps", "deployments.apps").
	Resources map[string]*ResourceFinalState
}

// ResourceFinalState is one resource's end state in a FinalState.
type ResourceFinalState struct {
	// Objects holds the final objects' JSON (without kind and apiVersion),
	// by match key. The key is "namespace/name" ("name" when
	// cluster-scoped). An object made with metadata.generateName has a
	// random suffix to its name. Its key is
	// "namespace/<generateName>#<ordinal>" (see generateNameKey). The
	// ordinal counts the final objects of that generateName in the order
	// they were created.
	Objects map[string][]byte
	// Added and Deleted count, per object, the ADDED and DELETED events
	// the target's writes made. Other events are the same in every run of
	// a cassette, or the environment's doing. Those are the recorded ones,
	// and those a plan-level fault such as recreate adds. The key is
	// "namespace/name". A generateName object counts under
	// "namespace/<generateName>*", with every object of that generateName.
	Added, Deleted map[string]int
	// Collected holds the count keys (as Added's) of the final objects
	// left out as the garbage collector's. Those are objects whose every
	// owner the history deleted. CollectedMasks masks them in the other
	// end state.
	Collected map[string]bool
	// Disturbed holds the count keys of the objects something other than
	// the target deleted. That may be a recorded delete, or the replay's
	// garbage collector after a recreate fault or a deleted owner. Their
	// counts are not compared: a correct controller makes again what the
	// environment took.
	Disturbed map[string]bool
}

// FinalStateOf returns the end state of h: every log's final state and the
// counts of the events the target's writes made. It leaves out the
// objects whose owners h deleted (orphaned: the garbage collector's). A
// nil h has an empty FinalState.
func FinalStateOf(h *history.History) FinalState {
	out := FinalState{Resources: map[string]*ResourceFinalState{}}
	if h == nil {
		return out
	}
	dead := deadOwners(h)
	for _, l := range h.Logs {
		out.Resources[l.Resource.Name()] = resourceFinalState(l, dead)
	}
	return out
}

// deadOwners returns the UIDs of the objects h held and no longer holds
// at its end, of every resource. A cluster's garbage collector deletes
// their dependents.
func deadOwners(h *history.History) map[string]bool {
	seen, live := map[string]bool{}, map[string]bool{}
	for _, l := range h.Logs {
		for _, o := range l.Initial {
			seen[o.UID] = true
		}
		for _, e := range l.Events {
			seen[e.Object.UID] = true
		}
		for _, o := range l.StateAt(l.End()) {
			live[o.UID] = true
		}
	}
	dead := map[string]bool{}
	for uid := range seen {
		if uid != "" && !live[uid] {
			dead[uid] = true
		}
	}
	return dead
}

// orphaned reports whether o has owners and every one of them is dead
// (deadOwners). kube-controller-manager's garbage collector deletes such
// an object (background propagation, the default). The replay runs no
// garbage collector and keeps it. An owner the history never held (a
// kind it did not record) is taken to be alive.
func orphaned(o *history.Object, dead map[string]bool) bool {
	if len(dead) == 0 {
		return false
	}
	owners := o.Owners()
	for _, uid := range owners {
		if !dead[uid] {
			return false
		}
	}
	return len(owners) > 0
}

// resourceFinalState is l's end state. It leaves out the objects orphaned
// by the owners in dead, and their ADDED and DELETED counts.
func resourceFinalState(l *history.Log, dead map[string]bool) *ResourceFinalState {
	ro := &ResourceFinalState{Objects: map[string][]byte{}, Added: map[string]int{}, Deleted: map[string]int{}, Disturbed: map[string]bool{}}
	born := map[string]int{} // key -> index of its last ADDED event (-1: initial)
	for _, o := range l.Initial {
		born[o.Key()] = -1
	}
	for i, e := range l.Events {
		k := e.Object.Key()
		if e.Type == history.Added {
			born[k] = i
		}
		if e.Type == history.Deleted && !e.ByTarget() {
			ck := k
			if g := generateNameOf(e.Object); g != "" {
				ck = keyIn(e.Object.Namespace, g) + "*"
			}
			ro.Disturbed[ck] = true
		}
		if !e.ByTarget() || (e.Type != history.Added && e.Type != history.Deleted) {
			continue
		}
		ck := k
		if g := generateNameOf(e.Object); g != "" {
			ck = keyIn(e.Object.Namespace, g) + "*"
		}
		if e.Type == history.Added {
			ro.Added[ck]++
		} else {
			ro.Deleted[ck]++
		}
	}
	final := l.StateAt(l.End())
	garbage := map[string]bool{} // count keys of the orphaned objects
	kept := final[:0:0]
	for _, o := range final {
		if !orphaned(o, dead) {
			kept = append(kept, o)
			continue
		}
		ck := o.Key()
		if g := generateNameOf(o); g != "" {
			ck = keyIn(o.Namespace, g) + "*"
		}
		garbage[ck] = true
	}
	final = kept
	if len(garbage) > 0 {
		ro.Collected = garbage
	}
	for ck := range garbage {
		delete(ro.Added, ck)
		delete(ro.Deleted, ck)
	}
	type generated struct {
		obj  *history.Object
		born int
	}
	groups := map[string][]generated{} // namespace/generateName -> its objects
	for _, o := range final {
		if g := generateNameOf(o); g != "" {
			gk := keyIn(o.Namespace, g)
			groups[gk] = append(groups[gk], generated{o, born[o.Key()]})
			continue
		}
		ro.Objects[o.Key()] = o.Raw
	}
	for gk, objs := range groups {
		sort.SliceStable(objs, func(i, j int) bool {
			if objs[i].born != objs[j].born {
				return objs[i].born < objs[j].born
			}
			return objs[i].obj.Key() < objs[j].obj.Key()
		})
		for i, g := range objs {
			ro.Objects[generateNameKey(gk, i)] = g.obj.Raw
		}
	}
	return ro
}

// generateNameKey is the match key of the ordinal-th final object (from
// 0, in creation order) made with generateName under genKey
// ("namespace/<generateName>").
func generateNameKey(genKey string, ordinal int) string {
	return fmt.Sprintf("%s#%d", genKey, ordinal)
}

// keyIn is name's key in namespace ns, as history.Object.Key renders it.
func keyIn(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// generateNameOf returns o's metadata.generateName when its name was made
// from it ("" otherwise).
func generateNameOf(o *history.Object) string {
	if !bytes.Contains(o.Raw, []byte(`"generateName"`)) {
		return ""
	}
	var m struct {
		Metadata struct {
			GenerateName string `json:"generateName"`
		} `json:"metadata"`
	}
	if json.Unmarshal(o.Raw, &m) != nil || m.Metadata.GenerateName == "" || !strings.HasPrefix(o.Name, m.Metadata.GenerateName) {
		return ""
	}
	return m.Metadata.GenerateName
}

// refusedWrites reports whether the replay refused one of ws as a replay
// that takes no writes does (405 MethodNotAllowed, replayer/write.go:
// opaque-rv).
func refusedWrites(ws []history.WriteAnswer) bool {
	for _, w := range ws {
		if w.Code == http.StatusMethodNotAllowed {
			return true
		}
	}
	return false
}

// Reference is what same-outcome judges a run's end state against. It is
// the outcome of a reference run of its input with no fault plan. With it
// go the masks of the fields that differed between two such runs.
type Reference struct {
	// FinalState is the first reference run's end state.
	FinalState FinalState
	// Masks are the masked fields and objects: DefaultMasks and those
	// LearnMasks learned from the two reference runs.
	Masks Masks
	// Writes counts the first reference run's writes (Observation.Writes).
	Writes int
	// Paced says the replay served the recorded changes at their recorded
	// offsets (replayer.PaceRecorded). The other actors' changes then
	// interleave with the target's writes as the target's timing falls.
	// So how often its writes created and deleted an object is timing's
	// doing, and only the end state is compared. Say the recording deletes
	// a parent and makes it again. A level-based controller may make and
	// remove a child of it, or not, depending on when it looks.
	Paced bool
}

// checkSameOutcome judges o's end state against ref, the reference runs'
// outcome (nil: not judged).
func checkSameOutcome(o *observe.Observation, ref *Reference) error {
	switch {
	case o == nil:
		return fmt.Errorf("%w: %w: nil observation", ErrDiffersFromReference, ErrNoObservation)
	case ref == nil:
		return fmt.Errorf("%w: no reference run (a read-only target, a verbatim replay, a run that is itself a reference, or reference runs given up: a spin, or a broken behaviour bound such as a hot loop)", ErrNotJudged)
	case !o.WritesLogged:
		return fmt.Errorf("%w: the replay did not log the target's writes", ErrNotJudged)
	case refusedWrites(o.Writes):
		return fmt.Errorf("%w: the replay took no writes (405 MethodNotAllowed: opaque resourceVersions, or a read-only replay), so the end state is not the target's doing", ErrNotJudged)
	case len(o.Writes) == 0 && ref.Writes == 0:
		return fmt.Errorf("%w: neither the run nor its reference wrote: the served state is the recorded one", ErrNotJudged)
	case o.Served == nil:
		return fmt.Errorf("%w: %w: no served history", ErrDiffersFromReference, ErrNoObservation)
	}
	want, got := ref.FinalState, FinalStateOf(o.Served)
	if ref.Paced {
		want, got = withoutCounts(want), withoutCounts(got)
	}
	return DiffFinalState(want, got, ref.Masks)
}

// withoutCounts returns out with no ADDED and DELETED counts: its end
// state alone.
func withoutCounts(out FinalState) FinalState {
	c := FinalState{Resources: make(map[string]*ResourceFinalState, len(out.Resources))}
	for res, r := range out.Resources {
		c.Resources[res] = &ResourceFinalState{Objects: r.Objects, Collected: r.Collected}
	}
	return c
}
