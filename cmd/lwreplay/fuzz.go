package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/internal/bubble"
)

// defaultArtifacts is where failure reports go when neither --artifacts
// nor $LWREPLAY_ARTIFACTS says.
const defaultArtifacts = "lwreplay-artifacts"

func runFuzz(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("fuzz", stderr)
	targetName := fs.String("target", "informer", "the client-go code to fuzz: "+targetNames())
	resourceNames := fs.StringSlice("resource", nil, "resources to fuzz, comma-separated or repeated, as recorded: pods, deployments.apps, configmaps.v1 (default: every recorded resource in turn)")
	duration := fs.Duration("duration", 60*time.Second, "how long to fuzz (wall clock)")
	seed := fs.Uint64("seed", 0, "seed of the random inputs (default: time-based, printed at start)")
	artifacts := fs.String("artifacts", "", "where failure reports go (default $"+fuzz.ArtifactsEnv+", else ./"+defaultArtifacts+")")
	levelName := fs.String("level", "typed", "level runs explore at: typed or wire")
	watchList := fs.String("watchlist", "auto", "client path: auto (the input picks), on or off")
	breaking := fs.Bool("breaking", false, "keep breaking faults (violations after one fired are expected, not failures)")
	parallel := fs.Int("parallel", runtime.GOMAXPROCS(0), "runs at a time")
	known := fs.StringArray("known", nil, "a signature of a finding known already, as a report's signature line gives it (repeatable): runs with it are counted, not failed")
	reportKnown := fs.StringSlice("report-known", nil, "shipped known findings to report as failures again: "+knownNames())
	clientGo := addClientGoFlag(fs)
	salvage := addSalvageFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := nonEmpty(fs, "target", "level", "watchlist", "artifacts", "client-go"); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: name at least one cassette file or directory", errUsage)
	}
	target, ok := fuzz.LookupTarget(*targetName)
	if !ok {
		return fmt.Errorf("%w: --target: unknown target %q (want %s)", errUsage, *targetName, targetNames())
	}
	level, err := fuzz.ParseLevel(*levelName)
	if err != nil {
		return fmt.Errorf("%w: --level: got %q, want typed or wire", errUsage, *levelName)
	}
	wl, err := parseWatchList(*watchList)
	if err != nil {
		return err
	}
	if fs.Changed("resource") && (len(*resourceNames) == 0 || slices.Contains(*resourceNames, "")) {
		return fmt.Errorf("%w: --resource: empty resource name", errUsage)
	}
	if *parallel < 1 {
		return fmt.Errorf("%w: --parallel: got %d, want at least 1", errUsage, *parallel)
	}
	if *duration <= 0 {
		return fmt.Errorf("%w: --duration: got %v, want a positive duration", errUsage, *duration)
	}
	var knownFindings []fuzz.Known
	for _, sig := range *known {
		k, err := fuzz.KnownSignature(sig)
		if err != nil {
			return fmt.Errorf("%w: --known: %v", errUsage, err)
		}
		knownFindings = append(knownFindings, k)
	}
	for _, name := range *reportKnown {
		if !slices.ContainsFunc(fuzz.KnownFindings, func(k fuzz.Known) bool { return k.Name == name }) {
			return fmt.Errorf("%w: --report-known: %q is no shipped known finding (want %s)", errUsage, name, knownNames())
		}
	}
	if !fs.Changed("seed") {
		*seed = uint64(time.Now().UnixNano())
	}
	root := *artifacts
	if root == "" {
		root = os.Getenv(fuzz.ArtifactsEnv)
	}
	if root == "" {
		root = defaultArtifacts
	}

	if ran, err := withClientGo(ctx, *clientGo, "fuzz", args, stdout, stderr); ran {
		return err
	}
	paths, err := cassette.Expand(fs.Args()...)
	if err != nil {
		return err
	}
	recs, err := loadRecordings("fuzz", paths, *salvage, stderr)
	if err != nil {
		return err
	}
	built, err := fuzz.BuildRecordings(recs) // each recording loaded and built once, for every resource's campaign
	if err != nil {
		return err
	}
	selected, err := selectResources(built.Resources(), paths, *resourceNames)
	if err != nil {
		return err
	}
	var campaigns []*fuzz.Campaign
	var seeds [][][]byte
	for _, r := range selected {
		c, err := fuzz.NewCampaign(fuzz.Options{Recordings: built, Salvage: *salvage, Resource: r.Resource, Target: target, WatchList: wl, AllowBreaking: *breaking, Level: level,
			Known: knownFindings, ReportKnown: *reportKnown})
		if err != nil {
			return err
		}
		campaigns = append(campaigns, c)
		seeds = append(seeds, c.Seeds())
	}
	f := newFuzzer(campaigns, root, stdout)
	fmt.Fprintf(stdout, "fuzz: client-go %s, target %s, %d cassette(s), resources %s, level %s, watchlist %s, breaking faults %s, seed %d (repeat with --seed %d)\n",
		fuzz.ClientGoVersion(),
		target.Name, len(recs), resourcesText(selected, len(recs)), level, *watchList, onOff(*breaking), *seed, *seed)
	f.loop(ctx, newInputs(seeds, *seed), *duration, *parallel)
	f.tally.write(stdout)
	t := f.tally
	fmt.Fprintf(stdout, "seed %d: %d runs, %d findings (%d failing runs), %s, %d unsettled (end state not judged), %d expected (breaking fault), %d unconfirmed at wire level, %d harness errors\n",
		*seed, t.runs, len(f.findings), t.failures, knownText(t.known), t.unsettled, t.expected, t.unconfirmed, t.harness)
	for _, k := range fuzz.KnownFindings {
		if n := t.known[k.Name]; n > 0 {
			fmt.Fprintf(stdout, "known: %s, %d runs: %s (not a failure; --report-known %s reports it)\n", k.Name, n, k.Doc, k.Name)
		}
	}
	f.writeFindings(stdout, *seed)
	if len(campaigns) > 1 {
		fmt.Fprintf(stdout, "runs per resource: %s\n", f.runsPerResource())
	}
	if len(f.findings) > 0 || t.harness > 0 {
		return fmt.Errorf("%d findings, %d harness errors (reports under %s)", len(f.findings), t.harness, root)
	}
	return nil
}

// knownNames lists the shipped known findings' names.
func knownNames() string {
	var names []string
	for _, k := range fuzz.KnownFindings {
		names = append(names, k.Name)
	}
	return strings.Join(names, ", ")
}

// knownText says how many known findings the runs matched: "1 known
// client-go bug (kubernetes#140890, 612 runs)", "no known bug".
func knownText(known map[string]int) string {
	var parts []string
	total := 0
	for _, k := range slices.Sorted(maps.Keys(known)) {
		parts = append(parts, fmt.Sprintf("%s, %d runs", k, known[k]))
		total += known[k]
	}
	switch len(parts) {
	case 0:
		return "no known bug"
	case 1:
		return fmt.Sprintf("1 known bug (%s)", parts[0])
	}
	return fmt.Sprintf("%d known bugs (%s)", len(parts), strings.Join(parts, "; "))
}

// targetNames lists the built-in targets' names.
func targetNames() string {
	var names []string
	for _, t := range fuzz.Targets {
		names = append(names, t.Name)
	}
	return strings.Join(names, ", ")
}

// parseWatchList reads --watchlist: auto (nil), on or off.
func parseWatchList(s string) (*bool, error) {
	switch s {
	case "auto":
		return nil, nil
	case "on", "off":
		v := s == "on"
		return &v, nil
	}
	return nil, fmt.Errorf("%w: --watchlist: got %q, want auto, on or off", errUsage, s)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

// newFuzzer returns a fuzzer of campaigns (one target, a resource each)
// writing reports under root and progress to out.
func newFuzzer(campaigns []*fuzz.Campaign, root string, out io.Writer) *fuzzer {
	return &fuzzer{cs: campaigns, root: root, out: out, tally: newTally(), seen: map[string]*finding{}, runs: make([]int, len(campaigns))}
}

// fuzzer drives a campaign from the command line.
type fuzzer struct {
	cs   []*fuzz.Campaign
	root string
	// seen maps a failure's signature (fuzz.Outcome.Signature) to its
	// finding; findings lists them in the order found.
	seen     map[string]*finding
	findings []*finding

	mu    sync.Mutex // guards out, tally, inputs and report directories
	out   io.Writer
	tally *tally
	runs  []int // runs per campaign
}

// loop runs inputs on workers goroutines until d has passed or ctx is
// done, printing progress about once a second and a note per failure. All
// runs share one hosted test; each worker runs its inputs in a subtest, so
// that a run that fails its test (a harness error: the replay or the
// target could not be set up) ends only that subtest, and is counted.
func (f *fuzzer) loop(ctx context.Context, in *inputs, d time.Duration, workers int) {
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
	runs := f.tally.runs
	f.mu.Unlock()
	if runs != lastRuns || runs == 0 {
		f.progress(time.Since(start))
	}
	if ctx.Err() != nil {
		fmt.Fprintf(f.out, "fuzz: interrupted\n")
	}
}

// worker runs inputs until stop says so, in subtests of t numbered from 1;
// a subtest that ends mid-run counts that run as a harness error, and the
// worker goes on in a new one.
func (f *fuzzer) worker(t *testing.T, id int, in *inputs, stop func() bool) {
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
			f.tally.runs++
			f.tally.harness++
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
	signature string // fuzz.Signature's text
	dir       string // its report's directory
	runs      int    // failing runs with its signature
	saving    bool   // a report is being written
	saved     bool   // a report was written
	plan      string // the plan of the report written
	planLen   int    // its decisions
}

// one runs data on campaign ci, saves it when it fails with a signature
// not seen before (or again, when its plan is smaller than the one
// saved), and counts it.
func (f *fuzzer) one(t *testing.T, ci int, data []byte) {
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
	var saved *fuzz.Saved
	var saveErr error
	if save {
		if saveErr = os.MkdirAll(fd.dir, 0o755); saveErr == nil {
			saved, saveErr = c.Save(t, out, fd.dir)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tally.add(out)
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
		fmt.Fprintf(f.out, "fuzz: report %s\n", filepath.Join(fd.dir, fuzz.ReportFile))
		if saved.Outcome.Observation != nil {
			fmt.Fprintf(f.out, "fuzz: timeline %s\n", filepath.Join(fd.dir, fuzz.TimelineFile))
		}
	}
	if saveErr != nil {
		fmt.Fprintf(f.out, "fuzz: report incomplete: %v\n", saveErr)
	}
}

// planText is a plan's text, or "no fault".
func planText(p faults.Plan) string {
	if len(p.Decisions) == 0 {
		return "no fault"
	}
	return p.String()
}

// writeFindings prints each finding with its runs and smallest plan, and
// adds the count of runs to its report.
func (f *fuzzer) writeFindings(w io.Writer, seed uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, fd := range f.findings {
		report := filepath.Join(fd.dir, fuzz.ReportFile)
		fmt.Fprintf(w, "finding %d: %s: %d runs, smallest plan %s: %s\n", fd.n, fd.signature, fd.runs, fd.plan, report)
		if !fd.saved {
			continue
		}
		if rf, err := os.OpenFile(report, os.O_APPEND|os.O_WRONLY, 0); err == nil {
			fmt.Fprintf(rf, "\nruns with this signature: %d of %d (lwreplay fuzz --seed %d), the smallest plan of them reported\n", fd.runs, f.tally.runs, seed)
			_ = rf.Close()
		}
	}
}

// nextDir returns the first unused <root>/<target>-<n> from n on (f.mu
// held; the caller creates it).
func (f *fuzzer) nextDir(n int) string {
	for ; ; n++ {
		dir := filepath.Join(f.root, fmt.Sprintf("%s-%d", f.cs[0].Target().Name, n))
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return dir
		}
	}
}

// progress prints one progress line and returns the run count it gave.
func (f *fuzzer) progress(elapsed time.Duration) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	t := f.tally
	rate := 0.0
	if s := elapsed.Seconds(); s > 0 {
		rate = float64(t.runs) / s
	}
	fmt.Fprintf(f.out, "fuzz: %s, %d runs (%.0f/s), %d/%d faults exercised, %d findings, %s\n",
		elapsed.Truncate(time.Second), t.runs, rate, len(t.fired), len(faults.Registry), len(f.findings), knownText(t.known))
	return t.runs
}

// runsPerResource says how many runs each campaign's resource had:
// "configmaps.v1 60, pods.v1 59".
func (f *fuzzer) runsPerResource() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	parts := make([]string, len(f.cs))
	for i, c := range f.cs {
		parts[i] = fmt.Sprintf("%s %d", c.Resource(), f.runs[i])
	}
	return strings.Join(parts, ", ")
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// noneColumn is the table column of runs in which no fault fired.
const noneColumn = "none"
