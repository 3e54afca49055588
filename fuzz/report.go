package fuzz

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/internal/engine"
	"github.com/lwreplay/lwreplay/fuzz/internal/report"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/replayer"
)

// ArtifactsEnv names the environment variable that says where failure
// reports go. Unset, go test's reports go to the test's artifact directory
// under go test -artifacts. Else they go to DefaultArtifacts in the
// package's directory (the directory go test runs the test in), where they
// stay once the test has ended.
const ArtifactsEnv = "LWREPLAY_ARTIFACTS"

// Report files, inside a failure's directory.
const (
	// ReportFile is the human-readable report.
	ReportFile = "report.txt"
	// ReproducerFile is the reproducer cassette: the failing run's traffic,
	// replayed verbatim with no plan.
	ReproducerFile = "reproducer.yaml"
	// PlanFile is the minimized fault plan (lwreplay serve --plan).
	PlanFile = "plan.yaml"
	// InputFile is the fuzz input, in go test's corpus format.
	InputFile = "input"
)

// Saved says where a failure's report went.
type Saved struct {
	// Dir is the failure's directory.
	Dir string
	// Outcome is the minimized failure the files describe.
	Outcome *Outcome
	// Reproduced says whether the run that recorded the reproducer broke
	// the same invariants.
	Reproduced bool
}

// ErrReport is returned when a failure report cannot be written.
var ErrReport = report.ErrReport

// Minimize drops the decisions of out's plan, one at a time, while the
// run (at the wire level) still breaks the first invariant out broke and
// still fails. A plan that leaves only a known finding, or a breaking
// fault's doing, is not the same failure. It returns the smallest failing
// outcome found: out itself when no decision can go.
func (c *Campaign) Minimize(t *testing.T, out *Outcome) *Outcome {
	t.Helper()
	first := firstBroken(out)
	if first == "" || len(out.Plan.Decisions) == 0 {
		return out
	}
	best := out
	for i := 0; i < len(best.Plan.Decisions); {
		plan := faults.Plan{Decisions: slices.Delete(slices.Clone(best.Plan.Decisions), i, i+1)}
		try := c.checkPlan(t, best, plan)
		if try.Results[first] != nil && try.Failed() {
			best = try
			continue
		}
		i++
	}
	return best
}

// checkPlan runs out's cassette and path under plan, at the wire level.
func (c *Campaign) checkPlan(t *testing.T, out *Outcome, plan faults.Plan) *Outcome {
	t.Helper()
	in := input{cassette: out.CassetteIndex, watchList: out.WatchList, gates: out.Gates, plan: plan}
	spec := c.spec(in)
	spec.Level = Wire
	try := &Outcome{Input: inputOr(in, out.Input), Cassette: out.Cassette, CassetteIndex: out.CassetteIndex, WatchList: out.WatchList, Gates: out.Gates, Plan: plan, Level: Wire, Scenario: out.Scenario}
	c.runOnce(t, spec, try)
	return try
}

// inputOr returns the input whose run is in, or old when in's plan has no
// byte form.
func inputOr(in input, old []byte) []byte {
	if b := inputFor(in); b != nil {
		return b
	}
	return old
}

// firstBroken names the first invariant out broke, in report order.
func firstBroken(out *Outcome) string {
	for _, name := range oracle.InReportOrder(out.Results) {
		if out.Results[name] != nil {
			return name
		}
	}
	return ""
}

// Save minimizes out's plan and writes the failure to dir:
//   - the report;
//   - the reproducer cassette: the minimized run's own traffic, recorded at
//     the wire level and marked to be replayed verbatim;
//   - the plan;
//   - the input.
func (c *Campaign) Save(t *testing.T, out *Outcome, dir string) (*Saved, error) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrReport, err)
	}
	min := c.Minimize(t, out)
	repro := filepath.Join(dir, ReproducerFile)
	in := input{cassette: min.CassetteIndex, watchList: min.WatchList, gates: min.Gates, plan: min.Plan}
	spec := c.spec(in)
	spec.Level, spec.RecordTo = Wire, repro
	recorded := &Outcome{Input: min.Input, Cassette: min.Cassette, CassetteIndex: min.CassetteIndex, WatchList: min.WatchList, Gates: min.Gates, Plan: min.Plan, Level: Wire, Scenario: min.Scenario}
	c.runOnce(t, spec, recorded)
	saved := &Saved{Dir: dir, Outcome: recorded, Reproduced: sameBroken(recorded, min)}
	if !saved.Reproduced {
		// The recording run went another way (scheduling); report what the
		// minimized run saw, and say so.
		saved.Outcome = min
	}
	var errs []error
	errs = append(errs, report.WriteFile(dir, PlanFile, faults.FormatPlan(min.Plan)))
	if out.Input != nil { // a plan with no byte form has its plan file alone
		errs = append(errs, report.WriteFile(dir, InputFile, engine.CorpusFile(CanonicalInput(out.Input))))
	}
	if saved.Outcome.Observation != nil {
		errs = append(errs, writeTimelineFile(dir, saved.Outcome))
	}
	errs = append(errs, report.WriteFile(dir, ReportFile, []byte(c.story(out, saved))))
	return saved, errors.Join(errs...)
}

// sameBroken reports whether a and b broke the same invariants.
func sameBroken(a, b *Outcome) bool {
	for name := range a.Results {
		if (a.Results[name] == nil) != (b.Results[name] == nil) {
			return false
		}
	}
	return len(a.Results) == len(b.Results)
}

// story is the report file's text.
func (c *Campaign) story(orig *Outcome, s *Saved) string {
	var b strings.Builder
	fmt.Fprintf(&b, "lwreplay fuzz failure: target %s\n\n", c.target.Name)
	b.WriteString(s.Outcome.Report + "\n\n")
	fmt.Fprintf(&b, "story: %s\n", faults.Describe(s.Outcome.Plan))
	if len(orig.Plan.Decisions) != len(s.Outcome.Plan.Decisions) {
		fmt.Fprintf(&b, "minimized from: %s\n", planText(orig.Plan))
	}
	if orig.Input != nil {
		fmt.Fprintf(&b, "seed input: []byte(%q)\n", orig.Input)
	}
	fmt.Fprintf(&b, "reproducer: %s (replays the failing run's traffic verbatim, no plan)\n", filepath.Join(s.Dir, ReproducerFile))
	if !s.Reproduced {
		b.WriteString("note: the run that recorded the reproducer broke other invariants than the minimized run\n")
	}
	if s.Outcome.Observation != nil {
		fmt.Fprintf(&b, "timeline: %s (open in a browser)\n", filepath.Join(s.Dir, TimelineFile))
	}
	pace := ""
	if c.opts.Pace.Mode != replayer.PaceMax {
		pace = " --pace " + c.opts.Pace.String()
	}
	fmt.Fprintf(&b, "plan file: %s (lwreplay serve %s --plan %s%s)\n", filepath.Join(s.Dir, PlanFile), orig.Cassette, filepath.Join(s.Dir, PlanFile), pace)
	b.WriteString(report.Activity(s.Outcome.Observation))
	return b.String()
}

// artifactName names the directory of out's report: the target and a
// digest of the input.
func artifactName(target string, out *Outcome) string {
	key := out.Input
	if key == nil { // a plan with no byte form: named by its text
		key = []byte(out.Plan.String())
	}
	sum := sha256.Sum256(key)
	return target + "-" + hex.EncodeToString(sum[:6])
}

// artifactDir is where t's failure for out is saved, kept after the test:
//   - under $LWREPLAY_ARTIFACTS when set;
//   - else in t's artifact directory under go test -artifacts;
//   - else under DefaultArtifacts in the working directory (go test's: the
//     package's directory).
//
// The name is the target's and the input's, so the same failure goes to
// the same place. The path is absolute, for the test's log.
func artifactDir(t testing.TB, target string, out *Outcome) string {
	return filepath.Join(artifactsRoot(t), artifactName(target, out))
}

// undecidedDir is where a fuzzing worker keeps the inputs of fuzz target
// fuzzName it ran out of time for, as go test corpus files, under the
// artifacts root (see artifactDir).
func undecidedDir(t testing.TB, fuzzName string) string {
	return filepath.Join(artifactsRoot(t), UndecidedDir, fuzzName)
}

// UndecidedDir is the directory, under the artifacts root, of the inputs
// a fuzzing worker ran out of time for (engine.InputBudget), one directory
// per fuzz target. Each is a go test corpus file: copied into the
// package's testdata/fuzz/<FuzzName>, go test -run judges it, with no
// deadline.
const UndecidedDir = "undecided"

// artifactsRoot is the absolute directory artifactDir places reports in.
func artifactsRoot(t testing.TB) string {
	root := os.Getenv(ArtifactsEnv)
	switch {
	case root != "":
	case goTestArtifacts():
		root = t.ArtifactDir()
	default:
		root = DefaultArtifacts
	}
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	return root
}

// goTestArtifacts reports whether go test was given -artifacts.
func goTestArtifacts() bool {
	f := flag.Lookup("test.artifacts")
	return f != nil && f.Value.String() == "true"
}
