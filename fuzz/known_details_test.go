package fuzz

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// errAlways is what alwaysBroken's check returns on every run.
var errAlways = errors.New("always broken")

// TestKnownSameOutcomeDetails runs the scenarios of a fault-free seed of a
// children controller with two planted bugs:
//   - a restart marks its children adopted (data.adopted: the crash and
//     restart scenarios);
//   - a relist marks them relisted (data.relisted: the recreate scenario).
//
// Known by what differs, one bug's runs are logged and the search finds
// the other. Known as a bare "same-outcome" (format 1), both are hidden.
// A seed whose own run meets a known finding still gets its scenarios.
func TestKnownSameOutcomeDetails(t *testing.T) {
	t.Parallel()
	alwaysBroken := NewInvariant("always-broken", "a user invariant the seed's own run breaks", func(*history.Log, *Observation) error {
		return fmt.Errorf("%w: on every run", errAlways) // a sentinel wrapped: its text is the detail
	})
	adopted := mustKnown(t, "same-outcome{configmaps data.adopted}")
	seedAndAdopted := Known{Name: "seed-and-adopted", Invariants: []string{"always-broken", "same-outcome"},
		Details: map[string][]string{"always-broken": {ErrorDetail(errAlways)}, "same-outcome": {"configmaps data.adopted"}}}
	on := true
	tests := []struct {
		name        string
		short       bool // runs under -short too (each case runs a seed's scenarios with their reference runs)
		known       []Known
		extra       []Invariant
		wantFailed  bool
		wantSig     string // of the outcome Check returns
		wantKnownIn string // a known finding KnownScenarios names
	}{
		{name: "known details - nothing known - the restart's bug found first, fail",
			wantFailed: true, wantSig: "same-outcome{configmaps data.adopted}"},
		{name: "known details - the restart's bug known - the relist's found, fail", known: []Known{adopted}, short: true,
			wantFailed: true, wantSig: "same-outcome{configmaps data.relisted}", wantKnownIn: adopted.Name},
		{name: "known details - every same-outcome known (format 1) - none found, pass", known: []Known{mustKnown(t, "same-outcome")},
			wantKnownIn: "same-outcome"},
		{name: "known details - the seed's own run known - its scenarios run, the relist's bug found, fail", known: []Known{seedAndAdopted},
			extra: []Invariant{alwaysBroken}, wantFailed: true, wantSig: `same-outcome{configmaps data.relisted},always-broken{"always broken"}`,
			wantKnownIn: seedAndAdopted.Name},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if testing.Short() && !tt.short {
				t.Skip("-short: runs a seed's scenarios with their reference runs")
			}
			t.Parallel()
			c, err := NewCampaign(Options{Cassettes: []string{targetCassette}, Target: childrenTargetWith("children-planted", childrenOpts{markRelists: true, markAdopted: true}),
				WatchList: &on, Scenarios: true, Known: tt.known, Extra: tt.extra})
			if err != nil {
				t.Fatalf("NewCampaign: got %v, want nil", err)
			}
			out := c.Check(t, Input{WatchList: true}.Bytes())
			if got := out.Failed(); got != tt.wantFailed {
				t.Fatalf("Failed: got %v, want %v\n%s", got, tt.wantFailed, out.Report)
			}
			if got := out.Signature().String(); tt.wantFailed && got != tt.wantSig {
				t.Errorf("signature: got %q, want %q (scenario %s)", got, tt.wantSig, out.Scenario)
			}
			if tt.wantKnownIn != "" && !slices.ContainsFunc(out.KnownScenarios, func(s string) bool { return strings.HasSuffix(s, "known finding "+tt.wantKnownIn) }) {
				t.Errorf("KnownScenarios: got %q, want one naming %s", out.KnownScenarios, tt.wantKnownIn)
			}
		})
	}
}

// TestMaskOptions shows Options.Masks without a resource or a why are
// refused.
func TestMaskOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		m    Mask
		want error
	}{
		{"mask options - a field of a resource, with why - pass", Mask{Resource: "configmaps", Path: "data.token", Why: "a random token"}, nil},
		{"mask options - every resource, a whole resource - pass", Mask{Resource: AnyResource, Path: "status.lastSync", Why: "a sync time"}, nil},
		{"mask options - no why - fail", Mask{Resource: "configmaps", Path: "data.token"}, ErrMask},
		{"mask options - no resource - fail", Mask{Path: "data.token", Why: "a random token"}, ErrMask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewCampaign(Options{Cassettes: []string{targetCassette}, Masks: []Mask{tt.m}})
			if !errors.Is(err, tt.want) || (tt.want == nil) != (err == nil) {
				t.Errorf("NewCampaign: got %v, want %v", err, tt.want)
			}
		})
	}
}

// mustKnown is KnownSignature(text).
func mustKnown(t *testing.T, text string) oracle.Known {
	t.Helper()
	k, err := oracle.KnownSignature(text)
	if err != nil {
		t.Fatalf("KnownSignature(%q): got %v, want nil", text, err)
	}
	return k
}
