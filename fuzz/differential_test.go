package fuzz

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/internal/reference"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/replayer"
)

// judgeSameOutcome judges same-outcome on obs against ref.
func judgeSameOutcome(obs *observe.Observation, ref *oracle.Reference) (err error, why string) {
	inv, _ := oracle.LookupInvariant("same-outcome")
	return oracle.JudgeOneAgainst(inv, obs, ref)
}

// TestSameOutcomeOnRealRuns runs the children controller on the real
// WatchList cassette against its reference runs. Correct, with no fault
// and with a legal one, it ends where the reference does. Edge-triggered
// (markRelists), an expired watch makes it end elsewhere.
func TestSameOutcomeOnRealRuns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		target    Target
		plan      string
		watchList bool
		want      error
	}{
		{name: "same-outcome - children, no fault, LIST+WATCH - pass", target: childrenTarget("children", false)},
		{name: "same-outcome - children, no fault, WatchList - pass", target: childrenTarget("children", false), watchList: true},
		{name: "same-outcome - children, the first watch expired - pass", target: childrenTarget("children", false), plan: "expire-watch:after=0,watch=1"},
		{name: "same-outcome - children, the first watch cut - pass", target: childrenTarget("children", false), plan: "close-watch:after=1,watch=1"},
		{name: "same-outcome - edge-triggered children, no fault - pass", target: childrenTarget("children-relists", true)},
		{name: "same-outcome - edge-triggered children, the first watch expired - fail", target: childrenTarget("children-relists", true),
			plan: "expire-watch:after=0,watch=1", want: oracle.ErrDiffersFromReference},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := harness.Spec{History: loadTargetHistory(t), Target: tt.target, WatchList: tt.watchList, Level: Typed}
			ref := reference.Of(t, spec)
			if ref == nil || ref.Writes == 0 {
				t.Fatalf("reference: got %+v, want one of a run that wrote", ref)
			}
			if tt.plan != "" {
				spec.Plan = mustPlan(t, tt.plan)
			}
			obs := harness.Observe(t, spec)
			err, why := judgeSameOutcome(obs, ref)
			if why != "" {
				t.Fatalf("same-outcome: got not judged (%s), want judged", why)
			}
			if tt.want == nil && err != nil {
				t.Fatalf("same-outcome: got %v, want nil (fired: %s)", err, faults.Story(obs.Fired))
			}
			if tt.want != nil && !errors.Is(err, tt.want) {
				t.Fatalf("same-outcome: got %v, want an error wrapping %v (fired: %s)", err, tt.want, faults.Story(obs.Fired))
			}
			if tt.want != nil && !strings.Contains(err.Error(), `data.relisted: "false" → "true"`) {
				t.Errorf("same-outcome: got %q, want it to name data.relisted \"false\" → \"true\"", err)
			}
		})
	}
}

// TestSameOutcomeInCampaign runs Campaign.Check, which makes and caches
// the reference runs. The edge-triggered controller's expired watch is
// reported by same-outcome, and minimization keeps it. A read-only target
// gets no reference.
func TestSameOutcomeInCampaign(t *testing.T) {
	t.Parallel()
	expired, err := faults.Encode(mustPlan(t, "expire-watch:after=0,at=1"))
	if err != nil {
		t.Fatalf("Encode: got %v, want nil", err)
	}
	noFault := Input{}.Bytes()
	withFault := Input{Plan: expired}.Bytes()
	tests := []struct {
		name    string
		target  Target
		inputs  [][]byte
		want    error // of the last input
		wantRef bool
	}{
		{name: "campaign - edge-triggered children, no fault then the first watch expired - fail", target: childrenTarget("children-relists", true),
			inputs: [][]byte{noFault, withFault}, want: oracle.ErrDiffersFromReference, wantRef: true},
		{name: "campaign - children, the first watch expired - pass", target: childrenTarget("children", false),
			inputs: [][]byte{noFault, withFault}, wantRef: true},
		{name: "campaign - informer (read-only), no fault - pass, no reference run", target: informerThen("reader", func(*Env) {}),
			inputs: [][]byte{noFault}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c, err := NewCampaign(Options{Cassettes: []string{targetCassette}, Target: tt.target})
			if err != nil {
				t.Fatalf("NewCampaign: got %v, want nil", err)
			}
			var out *Outcome
			for _, in := range tt.inputs {
				out = c.Check(t, in)
			}
			if last := tt.inputs[len(tt.inputs)-1]; string(last) == string(withFault) && len(out.Observation.Fired) == 0 {
				t.Fatalf("fired: got nothing, want the expired watch")
			}
			if got := out.Reference != nil; got != tt.wantRef {
				t.Errorf("Reference set: got %v, want %v", got, tt.wantRef)
			}
			got := out.Results["same-outcome"]
			if (tt.want == nil) != (got == nil) || (tt.want != nil && !errors.Is(got, tt.want)) {
				t.Errorf("same-outcome: got %v, want %v\n%s", got, tt.want, out.Report)
			}
			if tt.want != nil && !out.Failed() {
				t.Errorf("Failed: got false, want true (a legal fault)")
			}
			if tt.want != nil {
				if min := c.Minimize(t, out); !errors.Is(min.Results["same-outcome"], tt.want) || len(min.Plan.Decisions) != 1 {
					t.Errorf("Minimize: got same-outcome %v with plan %s, want %v with the one decision kept", min.Results["same-outcome"], min.Plan, tt.want)
				}
			}
		})
	}
}

// TestSameOutcomeFalseAlarms is the masks' false-alarm bar. It makes
// fault-free runs of the correct children controller with other seeds, on
// every shipped cassette. Each is judged by same-outcome against the
// reference of its cassette, client path and pace. It is confirmed as a
// campaign confirms an alarm (reference.One.Confirm). None may report
// anything. It logs how many the two-run reference alone, and
// DefaultMasks alone, would have reported. LWREPLAY_PAIRS sets how many
// runs per cassette, path and pace (default 5; -short: 1).
func TestSameOutcomeFalseAlarms(t *testing.T) {
	t.Parallel()
	n := 5
	if testing.Short() {
		n = 1
	}
	if v, err := strconv.Atoi(os.Getenv("LWREPLAY_PAIRS")); err == nil && v > 0 {
		n = v
	}
	target := childrenTarget("children", false)
	for _, path := range Glob("../cassettes/*.yaml") {
		for _, pace := range []replayer.Pace{{Mode: replayer.PaceMax}, {Mode: replayer.PaceRecorded}} {
			for _, watchList := range []bool{false, true} {
				t.Run(fmt.Sprintf("same-outcome - %s, pace %s, WatchList %v, %d fault-free runs - pass", path, pace, watchList, n), func(t *testing.T) {
					spec := harness.Spec{History: mustHistory(t, path), Target: target, WatchList: watchList, Level: Typed, Pace: pace}
					refs := &reference.One{}
					ref, _ := refs.Get(t, spec)
					if ref == nil {
						t.Fatalf("reference: got nil, want one of a run that wrote")
					}
					t.Logf("learned by the reference pair (beyond DefaultMasks): %q", learnedOnly(ref.Masks))
					defaultsOnly := *ref
					defaultsOnly.Masks = oracle.DefaultMaskSet()
					start, alarms, pairAlarms, defaultAlarms := time.Now(), 0, 0, 0
					for i := range n {
						spec.Seed = uint64(1000 + i)
						obs := harness.Observe(t, spec)
						if err, _ := judgeSameOutcome(obs, ref); err != nil {
							pairAlarms++
						}
						if err, _ := judgeSameOutcome(obs, &defaultsOnly); err != nil {
							defaultAlarms++
						}
						if err, why := judgeSameOutcome(obs, confirmed(t, refs, spec, obs)); err != nil || why != "" {
							alarms++
							t.Errorf("seed %d: same-outcome: got %v (not judged: %q), want it to hold", spec.Seed, err, why)
						}
					}
					took := time.Since(start)
					t.Logf("%d runs judged in %v (%.1f a second): %d alarms (%d confirmation runs); against the pair alone %d, DefaultMasks alone %d; learned in all: %q",
						n, took.Round(time.Millisecond), float64(n)/took.Seconds(), alarms, refs.Extra(), pairAlarms, defaultAlarms, learnedOnly(confirmed(t, refs, spec, nil).Masks))
				})
			}
		}
	}
}

// confirmed is refs' reference for obs (nil: its reference alone), from
// runs without a deadline: none is cut short.
func confirmed(t *testing.T, refs *reference.One, spec harness.Spec, obs *observe.Observation) *oracle.Reference {
	t.Helper()
	var ref *oracle.Reference
	if obs == nil {
		ref, _ = refs.Get(t, spec)
	} else {
		ref, _ = refs.Confirm(t, spec, obs)
	}
	return ref
}

// learnedOnly is m without the fields DefaultMasks masks already.
func learnedOnly(m oracle.Masks) string {
	var out []string
	for _, line := range strings.Split(m.String(), "\n") {
		_, path, _ := strings.Cut(line, " ")
		path = strings.TrimSuffix(path, "(every object)") // a resource masked whole (Events)
		if line != "" && !slices.ContainsFunc(oracle.DefaultMasks, func(d oracle.Mask) bool {
			return path == d.Path || strings.HasPrefix(path, d.Path+".") || strings.HasPrefix(path, d.Path+"[")
		}) {
			out = append(out, line)
		}
	}
	return strings.Join(out, "; ")
}

// TestSameOutcomeUnderLegalFaults runs the correct children controller
// under every one-point legal decision of Options.DecisionSeeds, both
// client paths. Those are each fault choice at a run's first requests and
// frames. A level-based controller ends where its fault-free reference
// does. So same-outcome holds on every settled run. A run under
// opaque-rv, whose replay takes no writes, is not judged.
func TestSameOutcomeUnderLegalFaults(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("-short: a few hundred runs")
	}
	target := childrenTarget("children", false)
	for _, watchList := range []bool{false, true} {
		t.Run(fmt.Sprintf("same-outcome - children, WatchList %v, every one-point legal decision - pass", watchList), func(t *testing.T) {
			spec := harness.Spec{History: loadTargetHistory(t), Target: target, WatchList: watchList, Level: Typed}
			ref := reference.Of(t, spec)
			if ref == nil {
				t.Fatalf("reference: got nil, want one of a run that wrote")
			}
			start, runs, fired, notJudged := time.Now(), 0, 0, map[string]int{}
			for _, b := range decisionSeeds() {
				spec.Plan = faults.Decode(b).Only(faults.Legal)
				obs := harness.Observe(t, spec)
				runs++
				if len(obs.Fired) > 0 {
					fired++
				}
				err, why := judgeSameOutcome(obs, ref)
				if why != "" {
					notJudged[why]++
				}
				if err != nil {
					t.Errorf("plan %s: same-outcome: got %v, want it to hold (fired: %s)", spec.Plan, err, faults.Story(obs.Fired))
				}
			}
			t.Logf("%d runs (%d with a fault that fired) in %v; not judged: %v", runs, fired, time.Since(start).Round(time.Millisecond), notJudged)
		})
	}
}
