package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/fuzz/targets"
	"github.com/lwreplay/lwreplay/internal/tune"
	"github.com/lwreplay/lwreplay/replayer"
)

func runFuzz(ctx context.Context, args []string, stdout, stderr io.Writer) (rerr error) {
	fs := newFlags("fuzz", stderr)
	targetName := fs.String("target", "informer", "the client-go code to fuzz: "+targetNames())
	resourceNames := fs.StringSlice("resource", nil, "resources to fuzz, comma-separated or repeated, as recorded: pods, deployments.apps, configmaps.v1 (default: every recorded resource in turn)")
	duration := fs.Duration("duration", 60*time.Second, "how long to fuzz (wall clock)")
	seed := fs.Uint64("seed", 0, "seed of the random inputs (default: time-based, printed at start)")
	artifacts := fs.String("artifacts", "", "where failure reports go (default $"+fuzz.ArtifactsEnv+", else ./"+fuzz.DefaultArtifacts+")")
	levelName := fs.String("level", "typed", "level runs explore at: typed or wire")
	watchList := fs.String("watchlist", "auto", "client path: auto (the input picks), on or off")
	expectOwn := fs.Bool("expect-own-writes", false, "the cassettes' recorded writes are the target's own (recorded through recorder.Wrap): leave their echoes out and expect them from the target")
	latency := fs.Duration("latency", replayer.DefaultLatency, "virtual time each of the target's requests takes to reach the replay, as a real apiserver's answer takes milliseconds (0: none); reports record it")
	paceFlag := fs.String("pace", "max", "how fast each run replays the recorded changes, in virtual time: max (all have happened when the target starts), recorded (at their recorded offsets: a controller's writes interleave with them), or a factor such as 10x")
	breaking := fs.Bool("breaking", false, "keep breaking faults (violations after one fired are expected, not failures)")
	parallel := fs.Int("parallel", fuzz.DefaultParallel(), "runs at a time (four a core: a run's goroutines hand off to each other and leave a core idle)")
	known := fs.StringArray("known", nil, "a signature of a finding known already, as a report's signature line gives it (repeatable): runs with it are counted, not failed; what differed, in braces, marks that finding alone (same-outcome{configmaps data.x}), a bare invariant every finding of it")
	reportKnown := fs.StringSlice("report-known", nil, "shipped known findings to report as failures again: "+knownNames())
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the campaign to this file (go tool pprof reads it)")
	clientGo := addClientGoFlag(fs)
	salvage := addSalvageFlag(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if err := nonEmpty(fs, "target", "level", "watchlist", "pace", "artifacts", "client-go", "cpuprofile"); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fmt.Errorf("%w: name at least one cassette file or directory", errUsage)
	}
	target, ok := targets.Lookup(*targetName)
	if !ok {
		return fmt.Errorf("%w: --target: unknown target %q (want %s)", errUsage, *targetName, targetNames())
	}
	lvl, err := level.Parse(*levelName)
	if err != nil {
		return fmt.Errorf("%w: --level: got %q, want typed or wire", errUsage, *levelName)
	}
	wl, err := parseWatchList(*watchList)
	if err != nil {
		return err
	}
	pace, err := replayer.ParsePace(*paceFlag)
	if err != nil {
		return fmt.Errorf("%w: --pace: %v", errUsage, err)
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
		if !slices.ContainsFunc(oracle.KnownFindings, func(k fuzz.Known) bool { return k.Name == name }) {
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
		root = fuzz.DefaultArtifacts
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
	tune.GC()
	selected, err := selectResources(built.Resources(), paths, *resourceNames)
	if err != nil {
		return err
	}
	var campaigns []*fuzz.Campaign
	for _, r := range selected {
		c, err := fuzz.NewCampaign(fuzz.Options{Latency: latencyOption(*latency), Recordings: built, Salvage: *salvage, Resource: r.Resource, Target: target, WatchList: wl, AllowBreaking: *breaking, Level: lvl,
			Known: knownFindings, ReportKnown: *reportKnown, Pace: pace, ExpectOwn: *expectOwn})
		if err != nil {
			return err
		}
		campaigns = append(campaigns, c)
	}
	fmt.Fprintf(stdout, "fuzz: client-go %s, target %s, %d cassette(s), resources %s, level %s, watchlist %s, pace %s, breaking faults %s, seed %d (repeat with --seed %d)\n",
		harness.ClientGoVersion(),
		target.Name, len(recs), resourcesText(selected, len(recs)), lvl, *watchList, pace, onOff(*breaking), *seed, *seed)
	if *cpuProfile != "" {
		stop, err := startCPUProfile(*cpuProfile)
		if err != nil {
			return err
		}
		defer func() {
			if err := stop(); rerr == nil {
				rerr = err
			}
		}()
	}
	e := fuzz.Explore(ctx, campaigns, fuzz.ExploreOptions{Duration: *duration, Parallel: *parallel, Seed: *seed, Artifacts: root, Progress: stdout})
	e.WriteTable(stdout)
	e.WriteSummary(stdout)
	if len(campaigns) > 1 {
		fmt.Fprintf(stdout, "runs per resource: %s\n", e.RunsPerResource())
	}
	if n, h := e.Findings(), e.HarnessErrors(); n > 0 || h > 0 {
		return fmt.Errorf("%d findings, %d harness errors (reports under %s)", n, h, root)
	}
	return nil
}

// knownNames lists the shipped known findings' names.
func knownNames() string {
	var names []string
	for _, k := range oracle.KnownFindings {
		names = append(names, k.Name)
	}
	return strings.Join(names, ", ")
}

// targetNames lists the built-in targets' names.
func targetNames() string {
	var names []string
	for _, t := range targets.Builtin {
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

// latencyOption is fuzz.Options.Latency for --latency d: d, or none (a
// negative value) for 0.
func latencyOption(d time.Duration) time.Duration {
	if d <= 0 {
		return -1
	}
	return d
}
