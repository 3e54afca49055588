package differential

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
)

// What a Difference is about.
const (
	// OnlyReal: the object exists only on the real cluster.
	OnlyReal = "only on the real cluster"
	// OnlyReplay: the object exists only in the replay.
	OnlyReplay = "only in the replay"
	// FinalDiffers: both sides have the object, its final states differ.
	FinalDiffers = "final state differs"
	// LifecycleDiffers: same final state, created or deleted other times
	// (a name made anew on one side only).
	LifecycleDiffers = "lifecycle differs"
	// StatesDiffer: same final state and the same creations and deletions,
	// through other intermediate states. (On a real cluster they depend on
	// how its controllers' writes interleave in real time.)
	StatesDiffer = "intermediate states differ"
)

// Difference is one object whose normalized lives differ between the
// real cluster and the replay.
type Difference struct {
	Key Key
	// What is OnlyReal, OnlyReplay, FinalDiffers or LifecycleDiffers.
	What string
	// Real and Replay are the object's lifecycles on each side.
	Real, Replay Lifecycle
}

// String returns the difference on one line per side.
func (d Difference) String() string {
	return fmt.Sprintf("%s: %s\n  real:   %s\n  replay: %s", d.Key, d.What,
		strings.Join(d.Real, " | "), strings.Join(d.Replay, " | "))
}

// skeleton is the lifecycle's creations and deletions only.
func (l Lifecycle) skeleton() []string {
	var out []string
	for _, e := range l {
		switch {
		case strings.HasPrefix(e, createdPrefix):
			out = append(out, "created")
		case e == deletedEntry:
			out = append(out, deletedEntry)
		}
	}
	return out
}

// Compare returns the differences between the lifecycles of the real
// cluster and those of the replay, sorted by key.
func Compare(real, replay map[Key]Lifecycle) []Difference {
	var out []Difference
	for k, r := range real {
		p, ok := replay[k]
		switch {
		case !ok:
			out = append(out, Difference{Key: k, What: OnlyReal, Real: r})
		case r.Final() != p.Final():
			out = append(out, Difference{Key: k, What: FinalDiffers, Real: r, Replay: p})
		case !slices.Equal(r.skeleton(), p.skeleton()):
			out = append(out, Difference{Key: k, What: LifecycleDiffers, Real: r, Replay: p})
		case !slices.Equal(r, p):
			out = append(out, Difference{Key: k, What: StatesDiffer, Real: r, Replay: p})
		}
	}
	for k, p := range replay {
		if _, ok := real[k]; !ok {
			out = append(out, Difference{Key: k, What: OnlyReplay, Replay: p})
		}
	}
	slices.SortFunc(out, func(a, b Difference) int {
		return cmp.Or(cmp.Compare(a.Key.Namespace, b.Key.Namespace), cmp.Compare(a.Key.Resource, b.Key.Resource),
			cmp.Compare(a.Key.Name, b.Key.Name))
	})
	return out
}

// Script returns the name of the script a key belongs to ("" for none).
func (k Key) Script() string {
	s, ok := strings.CutPrefix(k.Namespace, scriptPrefix)
	if !ok {
		return ""
	}
	return s
}

// Known is a difference the differential expects, with its reason. A
// difference matches it when its resource, its script and its What are
// the same (an empty field matches any). Its name must start with
// Name.
type Known struct {
	Resource, Script, Name, What string
	// Reason says why the sides differ (docs/replayer.md lists it).
	Reason string
}

// Matches reports whether the known difference covers d.
func (k Known) Matches(d Difference) bool {
	return (k.Resource == "" || k.Resource == d.Key.Resource) &&
		(k.Script == "" || k.Script == d.Key.Script()) &&
		strings.HasPrefix(d.Key.Name, k.Name) &&
		(k.What == "" || k.What == d.What)
}

// Explain splits diffs into those a known difference covers (with its
// reason) and the rest.
func Explain(diffs []Difference, known []Known) (explained map[string][]Difference, unexplained []Difference) {
	explained = map[string][]Difference{}
	for _, d := range diffs {
		i := slices.IndexFunc(known, func(k Known) bool { return k.Matches(d) })
		if i < 0 {
			unexplained = append(unexplained, d)
			continue
		}
		explained[known[i].Reason] = append(explained[known[i].Reason], d)
	}
	return explained, unexplained
}
