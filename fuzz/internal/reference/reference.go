// Package reference makes a campaign's fault-free reference runs. They
// give the end state same-outcome judges a run against, with the masks
// learned from runs that differ by chance.
package reference

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/replayer"
)

// seeds are the harness.Spec.Seed values of an input's two reference runs
// (same-outcome). These fault-free runs draw other backoffs and timeouts.
// Their end states differ only in the fields a correct target leaves to
// chance.
var seeds = [2]uint64{0x5eed0001, 0x5eed0002}

// Runs caches a campaign's reference runs: one oracle.Reference per key
// (the history, client path, gates and level), computed once.
type Runs struct {
	user oracle.Masks // Options.Masks
	mu   sync.Mutex
	m    map[key]*One
	// wrote says a run of the campaign wrote: until one does, the target
	// is taken to be read-only and no reference run is made.
	wrote atomic.Bool
}

// New returns an empty cache whose references hold the user's masks too.
func New(masks ...oracle.Mask) *Runs { return &Runs{user: oracle.MaskSet(masks...)} }

// For returns the reference that same-outcome judges obs, a run of spec,
// against (confirmed: see One.Confirm). It is nil when the run is a
// verbatim replay, did not log its writes, spun or ran out of time. It is
// nil, too, while no run of the campaign has written (a read-only target
// costs no reference run), or when the first reference run wrote nothing.
// ok is false when a reference or confirmation run was cut short at
// spec.Deadline: obs is then not to be judged.
func (rs *Runs) For(t *testing.T, spec harness.Spec, obs *observe.Observation) (ref *oracle.Reference, ok bool) {
	t.Helper()
	if spec.Reproducer != nil || !obs.WritesLogged || obs.Spin != nil || obs.OutOfTime {
		return nil, true
	}
	if len(obs.Writes) > 0 {
		rs.wrote.Store(true)
	}
	if !rs.wrote.Load() {
		return nil, true
	}
	k := key{h: spec.History, watchList: spec.WatchList, gates: gatesKey(spec.Gates), level: spec.Level}
	rs.mu.Lock()
	if rs.m == nil {
		rs.m = map[key]*One{}
	}
	r, ok := rs.m[k]
	if !ok {
		r = &One{user: rs.user}
		rs.m[k] = r
	}
	rs.mu.Unlock()
	return r.Confirm(t, spec, obs)
}

// key is what the reference runs of an input depend on besides the
// campaign's target, pace and options. That is the history replayed, the
// client path, the gates and the level.
type key struct {
	h         *history.History
	watchList bool
	gates     string
	level     level.Level
}

// One is one key's reference, computed once and widened by the
// confirmation runs of an alarm (Confirm). The zero value is ready.
type One struct {
	user  oracle.Masks           // Options.Masks, merged into ref once it is made
	mu    sync.Mutex             // guards the fields below; held while a run of them runs
	made  bool                   // the reference runs are done: ref is final (nil: none)
	runs  []*observe.Observation // the reference runs done so far, while !made
	ref   *oracle.Reference      // replaced, never changed, when widened
	extra int                    // confirmation runs made
}

// confirmRuns is how many more fault-free runs (other seeds) an alarm of
// same-outcome is confirmed with at most. maxConfirmRuns is how many one
// key's alarms may make in all. A difference a fault-free run shows too is
// nondeterminism that two reference runs missed. It is learned into the
// key's masks. Under PaceRecorded, a parent the recording deletes and
// creates again is one: whether the controller saw it gone is timing.
// Once the key has made maxConfirmRuns, its alarms stand.
const (
	confirmRuns    = 4
	maxConfirmRuns = 16
)

// Get returns the reference, running the reference runs of spec on the
// first call. A run cut short at spec.Deadline (observe.Observation's
// OutOfTime) is not kept: Get returns ok false, and a later call runs it
// again. The runs done are kept, so a loaded fuzzing worker makes the
// reference over several inputs.
func (r *One) Get(t *testing.T, spec harness.Spec) (ref *oracle.Reference, ok bool) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.get(t, spec)
}

// get is Get with r.mu held.
func (r *One) get(t *testing.T, spec harness.Spec) (*oracle.Reference, bool) {
	t.Helper()
	if r.made {
		return r.ref, true
	}
	spec.Plan, spec.RecordTo = faults.Plan{}, ""
	for len(r.runs) < len(seeds) {
		spec.Seed = seeds[len(r.runs)]
		obs := harness.Observe(t, spec)
		if obs.OutOfTime {
			return nil, false
		}
		r.runs = append(r.runs, obs)
		if givenUp(obs) || len(obs.Writes) == 0 {
			break // no reference: a given-up run, or a read-only target (the second run is not made)
		}
	}
	r.made = true
	r.ref = referenceOf(r.runs, spec.Pace)
	if r.ref != nil {
		r.ref.Masks = r.ref.Masks.Merge(r.user)
	}
	r.runs = nil
	return r.ref, true
}

// Confirm returns the reference obs, a run of spec, is to be judged
// against. When obs's end state differs from the reference's, up to
// confirmRuns more fault-free runs of spec with other seeds widen the
// masks (LearnMasks). They stop once obs's difference is masked or they
// are spent. The widened reference serves the key's later runs too. ok is
// false when a run was cut short at spec.Deadline: obs is then not to be
// judged against what Confirm returns.
func (r *One) Confirm(t *testing.T, spec harness.Spec, obs *observe.Observation) (ref *oracle.Reference, ok bool) {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	ref, ok = r.get(t, spec)
	if !ok || ref == nil || !differs(obs, ref) {
		return ref, ok
	}
	got := oracle.FinalStateOf(obs.Served)
	spec.Plan, spec.RecordTo = faults.Plan{}, ""
	for i := 0; i < confirmRuns && r.extra < maxConfirmRuns && oracle.DiffFinalState(ref.FinalState, got, ref.Masks) != nil; i++ {
		spec.Seed = seeds[1] + uint64(r.extra+1)
		e := harness.Observe(t, spec)
		if e.OutOfTime {
			return ref, false
		}
		r.extra++
		if givenUp(e) {
			continue
		}
		widened := *ref
		widened.Masks = ref.Masks.Merge(oracle.LearnMasks(ref.FinalState, oracle.FinalStateOf(e.Served)))
		ref = &widened
		r.ref = ref
	}
	return ref, true
}

// differs reports whether same-outcome fires on obs against ref.
func differs(obs *observe.Observation, ref *oracle.Reference) bool {
	inv, _ := oracle.LookupInvariant("same-outcome")
	err, _ := oracle.JudgeOneAgainst(inv, obs, ref)
	return errors.Is(err, oracle.ErrDiffersFromReference)
}

// Extra returns how many confirmation runs r has made.
func (r *One) Extra() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.extra
}

// Of runs spec twice with no fault plan, with seeds. It returns the first
// run's end state with the masks of both: DefaultMasks and what LearnMasks
// learns from the two. It returns nil when the first run wrote nothing (a
// read-only target: the second is not run). It returns nil, too, when
// either run was given up or cut short: a spin, a hot loop that ended it
// early, its deadline. Its end state is then no reference. The reference
// runs are not judged.
func Of(t *testing.T, spec harness.Spec) *oracle.Reference {
	t.Helper()
	var r One
	ref, _ := r.get(t, spec)
	return ref
}

// referenceOf is the reference runs make under pace: nil unless there are
// two, neither given up.
func referenceOf(runs []*observe.Observation, pace replayer.Pace) *oracle.Reference {
	if len(runs) != len(seeds) || givenUp(runs[0]) || givenUp(runs[1]) {
		return nil
	}
	a, b := runs[0], runs[1]
	oa, ob := oracle.FinalStateOf(a.Served), oracle.FinalStateOf(b.Served)
	return &oracle.Reference{FinalState: oa, Masks: oracle.DefaultMaskSet().Merge(oracle.LearnMasks(oa, ob)), Writes: len(a.Writes),
		Paced: pace.Mode == replayer.PaceRecorded}
}

// givenUp reports whether obs is no run to take an end state from. That is
// none, one given up spinning or at its deadline, or one ended at a broken
// behaviour bound: a hot loop, a write storm, a conflict loop. The input
// then breaks the bound with no fault.
func givenUp(obs *observe.Observation) bool {
	return obs == nil || obs.Spin != nil || obs.OutOfTime || obs.HotLoop != nil || obs.BoundEnd != nil
}

// gatesKey renders g sorted, as a map key.
func gatesKey(g harness.Gates) string {
	var s []string
	for _, k := range slices.Sorted(maps.Keys(g)) {
		s = append(s, fmt.Sprintf("%s=%v", k, g[k]))
	}
	return strings.Join(s, ",")
}
