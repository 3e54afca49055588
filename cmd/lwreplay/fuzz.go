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
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/bubble"
)

// defaultArtifacts is where failure reports go when neither --artifacts
// nor $LWREPLAY_ARTIFACTS says.
const defaultArtifacts = "lwreplay-artifacts"

// maxPlanBytes is the most plan bytes a random input carries.
const maxPlanBytes = 8

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
	paths, err := cassettePaths(fs.Args())
	if err != nil {
		return err
	}
	recs, err := loadRecordings("fuzz", paths, *salvage, stderr)
	if err != nil {
		return err
	}
	selected, err := selectResources(paths, *resourceNames, cassette.WithSalvage(*salvage))
	if err != nil {
		return err
	}
	var campaigns []*fuzz.Campaign
	var seeds [][][]byte
	for _, r := range selected {
		c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: r.Cassettes, Salvage: *salvage, Resource: r.Resource, Target: target, WatchList: wl, AllowBreaking: *breaking, Level: level})
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
	fmt.Fprintf(stdout, "seed %d: %d runs, %d failures (%d reported, %d repeats of a reported one), %d expected (breaking fault), %d unconfirmed at wire level, %d harness errors\n",
		*seed, t.runs, t.failures, t.failures-t.repeats, t.repeats, t.expected, t.unconfirmed, t.harness)
	if len(campaigns) > 1 {
		fmt.Fprintf(stdout, "runs per resource: %s\n", f.runsPerResource())
	}
	if t.failures > 0 || t.harness > 0 {
		return fmt.Errorf("%d failures, %d harness errors (reports under %s)", t.failures, t.harness, root)
	}
	return nil
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

// cassettePaths expands args to cassette files: a file as is, a directory
// to its *.yaml files, a pattern that names no file to its matches. The
// error names the arg that gives none. The files load as recordings
// (cassette.Group), each one cassette of the campaigns.
func cassettePaths(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		st, err := os.Stat(a)
		switch {
		case err == nil && st.IsDir():
			names, _ := filepath.Glob(filepath.Join(a, "*.yaml"))
			if len(names) == 0 {
				return nil, fmt.Errorf("cassette %s: no *.yaml cassette in directory", a)
			}
			out = append(out, names...)
		case err == nil:
			out = append(out, a)
		default:
			names, gerr := filepath.Glob(a)
			if gerr != nil || len(names) == 0 {
				return nil, fmt.Errorf("cassette %s: %v", a, err)
			}
			out = append(out, names...)
		}
	}
	return out, nil
}

// newFuzzer returns a fuzzer of campaigns (one target, a resource each)
// writing reports under root and progress to out.
func newFuzzer(campaigns []*fuzz.Campaign, root string, out io.Writer) *fuzzer {
	return &fuzzer{cs: campaigns, root: root, out: out, tally: newTally(), seen: map[string]int{}, runs: make([]int, len(campaigns))}
}

// signature says which failure out is, for telling repeats apart: the
// resource, the invariants it broke and the faults that fired, each sorted — only the
// persistent decisions' faults (with a *) when some fired: they make the
// failure, the faults fired once around them are incidental.
func signature(res history.Resource, out *fuzz.Outcome) string {
	var broken []string
	for name, err := range out.Results {
		if err != nil {
			broken = append(broken, name)
		}
	}
	set, lasting := map[string]bool{}, map[string]bool{}
	if out.Observation != nil {
		for _, fr := range out.Observation.Fired {
			set[fr.Fault] = true
			if fr.Persistent {
				lasting[fr.Fault+"*"] = true
			}
		}
	}
	if len(lasting) > 0 {
		set = lasting
	}
	fired := slices.Sorted(maps.Keys(set))
	slices.Sort(broken)
	return res.String() + " | " + strings.Join(broken, ",") + " | " + strings.Join(fired, ",")
}

// fuzzer drives a campaign from the command line.
type fuzzer struct {
	cs   []*fuzz.Campaign
	root string
	// seen maps a failure's signature (see signature) to the number of
	// the failure first reported with it.
	seen map[string]int

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

// one runs data on campaign ci, saves it when it fails, and counts it.
func (f *fuzzer) one(t *testing.T, ci int, data []byte) {
	c := f.cs[ci]
	out := c.Check(t, data)
	var saved *fuzz.Saved
	var saveErr error
	var dir string
	sig, first := signature(c.Resource(), out), 0
	if out.Failed() {
		f.mu.Lock()
		if first = f.seen[sig]; first == 0 {
			f.seen[sig] = -1 // being saved
			dir = f.nextDir()
			if err := os.MkdirAll(dir, 0o755); err != nil {
				saveErr = err
			}
		}
		f.mu.Unlock()
		if first == 0 && saveErr == nil {
			saved, saveErr = c.Save(t, out, dir)
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.tally.add(out)
	f.runs[ci]++
	if !out.Failed() {
		return
	}
	if first != 0 {
		f.tally.repeats++
		return
	}
	f.seen[sig] = f.tally.failures
	fmt.Fprintf(f.out, "fuzz: FAILURE %d:\n%s\n", f.tally.failures, indent(out.Report))
	if saved != nil {
		fmt.Fprintf(f.out, "fuzz: report %s\n", filepath.Join(dir, fuzz.ReportFile))
		if saved.Outcome.Observation != nil {
			fmt.Fprintf(f.out, "fuzz: timeline %s\n", filepath.Join(dir, fuzz.TimelineFile))
		}
	}
	if saveErr != nil {
		fmt.Fprintf(f.out, "fuzz: report incomplete: %v\n", saveErr)
	}
}

// nextDir returns the first unused <root>/<target>-<n> (f.mu held; the
// caller creates it).
func (f *fuzzer) nextDir() string {
	for n := f.tally.failures + 1; ; n++ {
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
	fmt.Fprintf(f.out, "fuzz: %s, %d runs (%.0f/s), %d/%d faults exercised, %d failures\n",
		elapsed.Truncate(time.Second), t.runs, rate, len(t.fired), len(faults.Registry), t.failures)
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
