package fuzz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/internal/explore"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/internal/bubble"
)

// The exploration engine is what the lwreplay fuzz command runs; go test
// -fuzz's engine is Go's own. It does this:
//   - campaigns run on random inputs by workers until a duration ends;
//   - failures are grouped by signature: one report each, the smallest plan
//     found, a count of runs;
//   - known findings are counted.

// ExploreOptions configure Explore. Zero values: a minute, a worker per
// CPU, seed 0, reports under ./lwreplay-artifacts, no progress lines.
type ExploreOptions struct {
	// Duration is how long to explore (wall clock).
	Duration time.Duration
	// Parallel is how many runs go at a time; zero means DefaultParallel.
	Parallel int
	// Seed seeds the random inputs (after each campaign's seeds).
	Seed uint64
	// Artifacts is where finding reports go, one directory each
	// (<target>-<n>).
	Artifacts string
	// Progress gets a progress line about once a second and each finding
	// as it is found; nil: none.
	Progress io.Writer
}

// DefaultArtifacts is where reports go when nothing else says: Explore's
// when ExploreOptions.Artifacts does not, and Run's under go test when
// ArtifactsEnv is unset (relative to the package's directory). Add it to
// .gitignore.
const DefaultArtifacts = "lwreplay-artifacts"

// DefaultParallel is how many runs Explore makes at a time unless told:
// four a core. A run hands off between its goroutines (the replay writes a
// frame, client-go decodes it, the handler runs), so one run a core leaves
// cores idle. The README's main job on 2 cores, 20 s each: 1,606 runs/s
// with 2 at a time, 1,848 with 4, 2,085 with 6, 2,215 with 8, 2,323 with
// 12, and no run over its spin or request bounds (docs/benchmarks.md).
func DefaultParallel() int { return 4 * runtime.GOMAXPROCS(0) }

// Explore runs campaigns (one target, a resource each) on Parallel workers
// until Duration has passed or ctx is done. It runs their seeds first, then
// random inputs (RandomInput) dealt to them in turn. It returns what it
// found:
//   - each failure's signature is reported once (minimized, with its
//     reproducer), and again when a later run of it has a smaller plan;
//   - its report ends with the count of its runs;
//   - runs that match a known finding are counted.
func Explore(ctx context.Context, campaigns []*Campaign, o ExploreOptions) *Exploration {
	if o.Duration <= 0 {
		o.Duration = time.Minute
	}
	if o.Parallel <= 0 {
		o.Parallel = DefaultParallel()
	}
	if o.Artifacts == "" {
		o.Artifacts = DefaultArtifacts
	}
	e := newExploration(campaigns, o.Artifacts, o.Progress)
	seeds := make([][][]byte, len(campaigns))
	for i, c := range campaigns {
		seeds[i] = c.Seeds()
	}
	e.seed = o.Seed
	e.loop(ctx, newInputs(seeds, o.Seed), o.Duration, o.Parallel)
	e.countFindings()
	return e
}

// Findings returns how many findings (distinct signatures) were made.
func (f *Exploration) Findings() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.findings)
}

// HarnessErrors returns how many runs could not be set up (a replay or a
// target that failed its test).
func (f *Exploration) HarnessErrors() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.tally.Harness
}

// WriteTable writes the invariants × faults table. Each cell is the runs
// in which the column's fault fired and the invariant was judged / the
// runs in which it broke.
func (f *Exploration) WriteTable(w io.Writer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tally.Write(w)
}

// WriteSummary writes:
//   - the summary line: runs, findings, known findings, unsettled,
//     expected, unconfirmed and harness runs;
//   - a line per known finding met;
//   - a line per finding with its runs, smallest plan and report.
func (f *Exploration) WriteSummary(w io.Writer) {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tally
	fmt.Fprintf(w, "seed %d: %d runs, %d findings (%d failing runs), %s, %d unsettled (end state not judged), %d expected (breaking fault), %d unconfirmed at wire level, %d harness errors\n",
		f.seed, t.Runs, len(f.findings), t.Failures, explore.KnownText(t.Known), t.Unsettled, t.Expected, t.Unconfirmed, t.Harness)
	for _, k := range oracle.KnownFindings {
		if n := t.Known[k.Name]; n > 0 {
			fmt.Fprintf(w, "known: %s, %d runs: %s (not a failure; --report-known %s reports it)\n", k.Name, n, k.Doc, k.Name)
		}
	}
	for _, fd := range f.findings {
		fmt.Fprintf(w, "finding %d: %s: %d runs, smallest plan %s: %s\n", fd.n, fd.signature, fd.runs, fd.plan, filepath.Join(fd.dir, ReportFile))
	}
}

// newExploration returns an exploration of campaigns (one target, a
// resource each) writing reports under root and progress to out.
func newExploration(campaigns []*Campaign, root string, out io.Writer) *Exploration {
	if out == nil {
		out = io.Discard
	}
	return &Exploration{cs: campaigns, root: root, out: out, tally: explore.NewTally(), seen: map[string]*finding{}, runs: make([]int, len(campaigns))}
}

// Exploration is a run of Explore: its campaigns, what their runs came to,
// and the findings, by signature. Its methods are safe for concurrent use.
type Exploration struct {
	cs   []*Campaign
	root string
	// seen maps a failure's signature (Outcome.Signature) to its
	// finding; findings lists them in the order found.
	seen     map[string]*finding
	findings []*finding

	mu    sync.Mutex // guards out, tally, inputs and report directories
	out   io.Writer
	tally *explore.Tally
	runs  []int // runs per campaign

	interrupted bool
	seed        uint64
}

// loop runs inputs on workers goroutines until d has passed or ctx is
// done. It prints progress about once a second and a note per failure.
// All runs share one hosted test. Each worker runs its inputs in a
// subtest. So a run that fails its test ends only that subtest, and is
// counted: a harness error, where the replay or the target could not be
// set up.
func (f *Exploration) loop(ctx context.Context, in *inputs, d time.Duration, workers int) {
	start := time.Now()
	stop := func() bool { return time.Since(start) >= d || ctx.Err() != nil }
	lastRuns := -1
	_ = bubble.Host(func(t *testing.T) {
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() { f.worker(t, w, in, stop) })
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				lastRuns = f.progress(time.Since(start))
			}
		}
	})
	f.mu.Lock()
	runs := f.tally.Runs
	f.mu.Unlock()
	if runs != lastRuns || runs == 0 {
		f.progress(time.Since(start))
	}
	if ctx.Err() != nil {
		f.mu.Lock()
		f.interrupted = true
		fmt.Fprintf(f.out, "fuzz: interrupted\n")
		f.mu.Unlock()
	}
}

// worker runs inputs until stop says so, in subtests of t numbered from 1.
// A subtest that ends mid-run counts that run as a harness error, and the
// worker goes on in a new one.
func (f *Exploration) worker(t *testing.T, id int, in *inputs, stop func() bool) {
	for n := 1; !stop(); n++ {
		var cur []byte
		var ci int
		t.Run(fmt.Sprintf("worker-%d-%d", id, n), func(t *testing.T) {
			for !stop() {
				f.mu.Lock()
				ci, cur = in.next()
				f.mu.Unlock()
				f.one(t, ci, cur)
				cur = nil
			}
		})
		if cur != nil {
			f.mu.Lock()
			f.tally.Runs++
			f.tally.Harness++
			f.runs[ci]++
			fmt.Fprintf(f.out, "fuzz: harness error (replay or target setup) on %s input []byte(%q); rerun it under go test to see why\n", f.cs[ci].Resource(), cur)
			f.mu.Unlock()
		}
	}
}

// finding is one signature's failures: one report, of the smallest plan
// found, and the count of runs.
type finding struct {
	n         int    // its number, from 1
	signature string // Signature's text
	dir       string // its report's directory
	runs      int    // failing runs with its signature
	saving    bool   // a report is being written
	saved     bool   // a report was written
	plan      string // the plan of the report written
	planLen   int    // its decisions
}

// one runs data on campaign ci and counts it. It saves it when it fails
// with a signature not seen before, or again when its plan is smaller than
// the one saved.
func (f *Exploration) one(t *testing.T, ci int, data []byte) {
	c := f.cs[ci]
	out := c.Check(t, data)
	var fd *finding
	save, first := false, false
	if out.Failed() {
		sig := out.Signature().String()
		f.mu.Lock()
		fd = f.seen[sig]
		switch {
		case fd == nil:
			fd = &finding{n: len(f.findings) + 1, signature: sig, dir: f.nextDir(len(f.findings) + 1), saving: true}
			f.seen[sig] = fd
			f.findings = append(f.findings, fd)
			save, first = true, true
		case !fd.saving && fd.saved && len(out.Plan.Decisions) < fd.planLen:
			fd.saving, save = true, true
		}
		f.mu.Unlock()
	}
	var saved *Saved
	var saveErr error
	if save {
		if saveErr = os.MkdirAll(fd.dir, 0o755); saveErr == nil {
			saved, saveErr = c.Save(t, out, fd.dir)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tally.Add(tallyRun(out))
	f.runs[ci]++
	if fd == nil {
		return
	}
	fd.runs++
	if save {
		fd.saving = false
		if saved != nil && (!fd.saved || len(saved.Outcome.Plan.Decisions) < fd.planLen) {
			fd.saved, fd.plan, fd.planLen = true, planText(saved.Outcome.Plan), len(saved.Outcome.Plan.Decisions)
		}
	}
	if !first {
		return
	}
	fmt.Fprintf(f.out, "fuzz: FINDING %d: %s\n%s\n", fd.n, fd.signature, indent(out.Report))
	if saved != nil {
		fmt.Fprintf(f.out, "fuzz: report %s\n", filepath.Join(fd.dir, ReportFile))
		if saved.Outcome.Observation != nil {
			fmt.Fprintf(f.out, "fuzz: timeline %s\n", filepath.Join(fd.dir, TimelineFile))
		}
	}
	if saveErr != nil {
		fmt.Fprintf(f.out, "fuzz: report incomplete: %v\n", saveErr)
	}
}

// countFindings adds the count of its runs to each finding's report.
func (f *Exploration) countFindings() {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fd := range f.findings {
		if !fd.saved {
			continue
		}
		if rf, err := os.OpenFile(filepath.Join(fd.dir, ReportFile), os.O_APPEND|os.O_WRONLY, 0); err == nil {
			fmt.Fprintf(rf, "\nruns with this signature: %d of %d (lwreplay fuzz --seed %d), the smallest plan of them reported\n", fd.runs, f.tally.Runs, f.seed)
			_ = rf.Close()
		}
	}
}

// nextDir returns the first unused <root>/<target>-<n> from n on (f.mu
// held; the caller creates it).
func (f *Exploration) nextDir(n int) string {
	for ; ; n++ {
		dir := filepath.Join(f.root, fmt.Sprintf("%s-%d", f.cs[0].Target().Name, n))
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return dir
		}
	}
}

// progress prints one progress line and returns the run count it gave.
func (f *Exploration) progress(elapsed time.Duration) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tally
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(t.Runs) / s
	}
	fmt.Fprintf(f.out, "fuzz: %s, %d runs (%.0f/s), %d/%d faults exercised, %d findings, %s\n",
		elapsed.Truncate(time.Second), t.Runs, rate, len(t.Fired), len(faults.Registry), len(f.findings), explore.KnownText(t.Known))
	return t.Runs
}

// RunsPerResource says how many runs each campaign's resource had:
// "configmaps.v1 60, pods.v1 59".
func (f *Exploration) RunsPerResource() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	parts := make([]string, len(f.cs))
	for i, c := range f.cs {
		parts[i] = fmt.Sprintf("%s %d", c.Resource(), f.runs[i])
	}
	return strings.Join(parts, ", ")
}

// indent indents every line of s by two spaces.
func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// tallyRun is what the tally counts of out.
func tallyRun(out *Outcome) explore.Run {
	r := explore.Run{Failed: out.Failed(), Expected: out.Expected, Known: out.Known, Unconfirmed: out.Unconfirmed != "",
		Results: out.Results, NotJudged: out.NotJudged}
	if out.Observation != nil {
		r.Unsettled, r.Fired = out.Observation.Unsettled, out.Observation.Fired
	}
	return r
}
