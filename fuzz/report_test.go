package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/history"
)

// errTombstone is what noTombstone returns.
var errTombstone = errors.New("tombstone delivered")

// noTombstone is a deliberately strict user invariant. It fails a run
// whose handler was ever given a DeletedFinalStateUnknown. client-go does
// that, legally, when a relist misses a delete. It gives the report tests
// a failure that a legal plan provokes.
var noTombstone = oracle.NewInvariant("no-tombstone", "the handler never gets a DeletedFinalStateUnknown",
	func(_ *history.Log, o *observe.Observation) error {
		for _, d := range o.Deliveries {
			if d.Op == observe.OpTombstone {
				return fmt.Errorf("%w: %s at %v", errTombstone, d.Key, d.At)
			}
		}
		return nil
	})

// tombstoneInput returns a campaign over the paged LIST cassette and an
// input whose plan makes an informer see tombstones. The plan fails the
// first LIST, then expires a watch after three events, so that the relist
// skips deletes. A dead decision is added in front, for minimization.
func tombstoneInput(t *testing.T) (*Campaign, []byte) {
	t.Helper()
	c, err := NewCampaign(Options{Cassettes: []string{"../cassettes/real-configmaps-pods-list-pages.yaml"},
		Invariants: []string{"converged", "no-tombstone"}, Extra: []oracle.Invariant{noTombstone}})
	if err != nil {
		t.Fatalf("NewCampaign: got error %v, want none", err)
	}
	plan, err := faults.ParseText("http-error:code=500,at=0 expire-watch:after=3,at=2 close-watch:after=5,at=60")
	if err != nil {
		t.Fatalf("plan: got error %v, want none", err)
	}
	enc, err := faults.Encode(plan)
	if err != nil {
		t.Fatalf("encode: got error %v, want none", err)
	}
	return c, append([]byte{0, 0}, enc...)
}

func TestSaveReproducerReplays(t *testing.T) {
	t.Parallel()
	c, data := tombstoneInput(t)
	out := c.Check(t, data)
	if !out.Failed() || !errors.Is(out.Results["no-tombstone"], errTombstone) {
		t.Fatalf("check: got failed=%v results=%v, want no-tombstone broken", out.Failed(), out.Results)
	}
	if out.Level != Wire {
		t.Errorf("level: got %s, want wire (a typed-level violation is confirmed at the wire)", out.Level)
	}
	dir := t.TempDir()
	saved, err := c.Save(t, out, dir)
	if err != nil {
		t.Fatalf("Save: got error %v, want none", err)
	}
	if got, want := len(saved.Outcome.Plan.Decisions), 2; got != want {
		t.Errorf("minimized plan: got %d decisions (%s), want %d", got, saved.Outcome.Plan, want)
	}
	for _, name := range []string{ReportFile, ReproducerFile, PlanFile, InputFile, TimelineFile} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s: got error %v, want the file", name, err)
		}
	}
	report, _ := os.ReadFile(filepath.Join(dir, ReportFile))
	for _, want := range []string{"invariant no-tombstone:", "minimized from:", "reproducer:", "story:", "timeline: " + filepath.Join(dir, TimelineFile)} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report: got %q, want it to contain %q", report, want)
		}
	}

	// The reproducer, replayed with no plan, breaks the same invariant.
	r, err := NewCampaign(Options{Cassettes: []string{filepath.Join(dir, ReproducerFile)},
		Invariants: []string{"converged", "no-tombstone"}, Extra: []oracle.Invariant{noTombstone}})
	if err != nil {
		t.Fatalf("reproducer campaign: got error %v, want none", err)
	}
	for _, seed := range r.Seeds() {
		got := r.Check(t, seed)
		if !errors.Is(got.Results["no-tombstone"], errTombstone) {
			t.Errorf("reproducer, input %q: got results %v, want no-tombstone broken", seed, got.Results)
		}
		if got.Results["converged"] != nil {
			t.Errorf("reproducer, input %q: converged: got %v, want it to hold as in the original", seed, got.Results["converged"])
		}
		if len(got.Plan.Decisions) != 0 {
			t.Errorf("reproducer, input %q: plan: got %s, want none", seed, got.Plan)
		}
	}
}

func TestMinimize(t *testing.T) {
	t.Parallel()
	c, data := tombstoneInput(t)
	tests := []struct {
		name string
		out  *Outcome
		want int
	}{
		{name: "minimize - a dead decision - dropped - pass", out: c.Check(t, data), want: 2},
		{name: "minimize - nothing broken - unchanged - pass", out: &Outcome{Plan: faults.Decode(data[2:])}, want: 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := c.Minimize(t, tc.out)
			if len(got.Plan.Decisions) != tc.want {
				t.Errorf("decisions: got %d (%s), want %d", len(got.Plan.Decisions), got.Plan, tc.want)
			}
		})
	}
}

func TestSavedPlansAreSeeds(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := filepath.Join(dir, "a-plan.yaml")
	plan, _ := faults.ParseText("expire-watch:after=3,at=2")
	if err := os.WriteFile(good, faults.FormatPlan(plan), 0o644); err != nil {
		t.Fatal(err)
	}
	enc, _ := faults.Encode(plan)
	tests := []struct {
		name      string
		plans     []string
		wantSeeds int
		wantErr   string
	}{
		{name: "plans - none - four seeds per cassette (two paths, gates as they are and off) - pass", plans: nil, wantSeeds: 4},
		{name: "plans - one saved plan - two more seeds - pass", plans: []string{good}, wantSeeds: 6},
		{name: "plans - by a glob - two more seeds - pass", plans: Glob(filepath.Join(dir, "a-*.yaml")), wantSeeds: 6},
		{name: "plans - missing file - fail", plans: []string{filepath.Join(dir, "missing.yaml")}, wantErr: "missing.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCampaign(Options{Cassettes: []string{"../cassettes/real-configmaps-pods-list-pages.yaml"}, Plans: tc.plans})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("NewCampaign: got error %v, want one naming %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewCampaign: got error %v, want none", err)
			}
			seeds := c.Seeds()
			if len(seeds) != tc.wantSeeds {
				t.Fatalf("seeds: got %d (%q), want %d", len(seeds), seeds, tc.wantSeeds)
			}
			if len(tc.plans) > 0 && !bytes.Equal(seeds[4][2:], enc) {
				t.Errorf("seed 4: got plan bytes %q, want %q", seeds[4][2:], enc)
			}
		})
	}
	bad := filepath.Join(dir, "b-where.yaml")
	where, _ := faults.ParseText("close-watch:after=1,watch=2")
	if err := os.WriteFile(bad, faults.FormatPlan(where), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := NewCampaign(Options{Cassettes: []string{"../cassettes/real-configmaps-pods-list-pages.yaml"}, Plans: []string{bad}}); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("plan placed by where-parameters: got error %v, want one naming %s", err, bad)
	}
}
