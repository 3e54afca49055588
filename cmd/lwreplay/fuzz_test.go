package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/internal/bubble"
)

const watchlistCassette = "../../cassettes/real-configmaps-pods-watchlist.yaml"

func TestFuzzRun(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes for two seconds")
	}
	artifacts := t.TempDir()
	// WatchList off: on, client-go 0.37.2's reflector storms (see
	// TestFuzzFindsWatchListStorm)
	code, out, stderr := runCLI("fuzz", "--duration", "2s", "--seed", "1", "--watchlist", "off", "--artifacts", artifacts, watchlistCassette)
	if code != 0 {
		t.Fatalf("fuzz - short run - pass: exit code: got %d, want 0; stdout:\n%s\nstderr: %s", code, out, stderr)
	}
	progress := regexp.MustCompile(`(?m)^fuzz: \d+s, [1-9]\d* runs \(\d+/s\), \d+/` + fmt.Sprint(len(faults.Registry)) + ` faults exercised, 0 findings, no known bug$`)
	checks := []struct {
		name string
		ok   bool
		want string
	}{
		{"fuzz - short run prints the seed - pass", strings.Contains(out, "seed 1 (repeat with --seed 1)"), "the seed at start"},
		{"fuzz - short run prints progress - pass", progress.MatchString(out), "a progress line"},
		{"fuzz - short run prints the table header - pass", strings.Contains(out, "INVARIANT \\ FAULT") && strings.Contains(out, noneColumn), "a table header with a none column"},
		{"fuzz - short run prints the summary - pass", regexp.MustCompile(`(?m)^seed 1: [1-9]\d* runs, 0 findings \(0 failing runs\)`).MatchString(out), "a summary naming seed 1 and the runs"},
	}
	for _, inv := range fuzz.Invariants {
		row := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(inv.Name) + `\s+\d+/\d+`)
		checks = append(checks, struct {
			name string
			ok   bool
			want string
		}{"fuzz - table row " + inv.Name + " - pass", row.MatchString(out), "a table row for invariant " + inv.Name})
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Errorf("output: got\n%s\nwant %s", out, c.want)
			}
		})
	}
}

func TestFuzzErrors(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []errorCase{
		{"fuzz - no cassette - fail", []string{"fuzz"}, 2, "name at least one cassette"},
		{"fuzz - unknown target - fail", []string{"fuzz", "--target", "frob", watchlistCassette}, 2, `--target: unknown target "frob"`},
		{"fuzz - bad level - fail", []string{"fuzz", "--level", "deep", watchlistCassette}, 2, `--level: got "deep", want typed or wire`},
		{"fuzz - bad watchlist - fail", []string{"fuzz", "--watchlist", "maybe", watchlistCassette}, 2, `--watchlist: got "maybe"`},
		{"fuzz - zero duration - fail", []string{"fuzz", "--duration", "0s", watchlistCassette}, 2, "--duration"},
		{"fuzz - zero parallel runs - fail", []string{"fuzz", "--parallel", "0", watchlistCassette}, 2, "--parallel: got 0"},
		{"fuzz - unknown flag - fail", []string{"fuzz", "--frob", watchlistCassette}, 2, "unknown flag: --frob"},
		{"fuzz - known signature without invariants - fail", []string{"fuzz", "--known", " @ main.f", watchlistCassette}, 2, "--known: bad signature"},
		{"fuzz - report-known of no shipped finding - fail", []string{"fuzz", "--report-known", "kubernetes#1", watchlistCassette}, 2, `--report-known: "kubernetes#1" is no shipped known finding`},
		{"fuzz - missing file - fail", []string{"fuzz", filepath.Join(dir, "nope.yaml")}, 1, "nope.yaml"},
		{"fuzz - directory without cassettes - fail", []string{"fuzz", empty}, 1, "empty: no *.yaml cassette"},
	}
	runErrorCases(t, tests)
}

// take returns the first n inputs of in.
func take(in *inputs, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		_, out[i] = in.next()
	}
	return out
}

func TestFuzzInputs(t *testing.T) {
	seeds := [][]byte{{0}, {0, 0}}
	a := take(newInputs([][][]byte{seeds}, 7), 200)
	tests := []struct {
		name string
		ok   bool
		got  string
		want string
	}{
		{"inputs - seeds come first - pass", bytes.Equal(a[0], seeds[0]) && bytes.Equal(a[1], seeds[1]),
			fmt.Sprintf("%q %q", a[0], a[1]), fmt.Sprintf("%q %q", seeds[0], seeds[1])},
		{"inputs - same seed - pass", equalInputs(a, take(newInputs([][][]byte{seeds}, 7), 200)), "a different sequence", "the same sequence"},
		{"inputs - other seed - pass", !equalInputs(a, take(newInputs([][][]byte{seeds}, 8), 200)), "the same sequence", "a different sequence"},
	}
	lengths := map[int]bool{}
	faultBytes := 0
	for _, in := range a[2:] {
		lengths[len(in)] = true
		for _, b := range in[min(2, len(in)):] {
			if b >= faults.FirstFaultByte {
				faultBytes++
			}
		}
	}
	okLen := len(lengths) == fuzz.MaxRandomPlanBytes+1
	for n := range lengths {
		okLen = okLen && n >= 2 && n <= 2+fuzz.MaxRandomPlanBytes
	}
	tests = append(tests,
		struct {
			name string
			ok   bool
			got  string
			want string
		}{"inputs - lengths span 2 to 2+MaxRandomPlanBytes - pass", okLen, fmt.Sprint(lengths), fmt.Sprintf("every length 2..%d", 2+fuzz.MaxRandomPlanBytes)},
		struct {
			name string
			ok   bool
			got  string
			want string
		}{"inputs - some plan bytes are faults - pass", faultBytes > 0, fmt.Sprint(faultBytes), "some"},
	)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Errorf("got %s, want %s", tc.got, tc.want)
			}
		})
	}
}

func equalInputs(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestFuzzTally(t *testing.T) {
	broke := errors.New("broke")
	fired := func(names ...string) *fuzz.Observation {
		obs := &fuzz.Observation{}
		for _, n := range names {
			obs.Fired = append(obs.Fired, faults.Firing{Fault: n})
		}
		return obs
	}
	tl := newTally()
	tl.add(&fuzz.Outcome{Observation: fired(), Results: map[string]error{"converged": nil, "live": nil}})
	tl.add(&fuzz.Outcome{Observation: fired("delay", "reset", "delay"), Results: map[string]error{"converged": broke, "live": nil}, Report: "x"})
	tl.add(&fuzz.Outcome{Observation: fired("delay"), Results: map[string]error{"converged": nil, "live": broke}, Report: "y", Expected: true})
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"tally - runs - pass", tl.runs, 3},
		{"tally - failures - pass", tl.failures, 1},
		{"tally - expected - pass", tl.expected, 1},
		{"tally - columns in registry order - pass", fmt.Sprint(tl.columns()), fmt.Sprint([]string{"reset", "delay", noneColumn})},
		{"tally - converged × delay - pass", *tl.cells["converged"]["delay"], cell{runs: 2, broken: 1}},
		{"tally - converged × reset - pass", *tl.cells["converged"]["reset"], cell{runs: 1, broken: 1}},
		{"tally - live × delay - pass", *tl.cells["live"]["delay"], cell{runs: 2, broken: 1}},
		{"tally - converged × none - pass", *tl.cells["converged"][noneColumn], cell{runs: 1, broken: 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %v, want %v", tc.got, tc.want)
			}
		})
	}
	t.Run("tally - table cells - pass", func(t *testing.T) {
		var b bytes.Buffer
		tl.write(&b)
		row := regexp.MustCompile(`(?m)^converged\s+1/1\s+2/1\s+1/0$`)
		if !row.MatchString(b.String()) {
			t.Errorf("table: got\n%s\nwant a row converged 1/1 2/1 1/0", b.String())
		}
	})
}

// forgetful is a target that lists once and then shows an empty store: it
// breaks the converged invariant on every run.
var forgetful = fuzz.Target{Name: "forgetful", Doc: "lists once, keeps nothing", Run: func(ctx context.Context, env *fuzz.Env) error {
	lw, err := env.ListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return err
	}
	if _, err := lw.List(metav1.ListOptions{}); err != nil {
		return err
	}
	env.Probe.SetStore(func() []any { return nil })
	env.Probe.SetSynced(func() bool { return true })
	<-ctx.Done()
	return nil
}}

func TestFuzzFailureSaved(t *testing.T) {
	c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: []string{watchlistCassette}, Target: forgetful})
	if err != nil {
		t.Fatalf("NewCampaign: got error %v, want none", err)
	}
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "forgetful-1"), 0o755); err != nil {
		t.Fatal(err) // an earlier session's report, not to be overwritten
	}
	var out bytes.Buffer
	f := newFuzzer([]*fuzz.Campaign{c}, root, &out)
	if err := bubble.Host(func(t *testing.T) { f.one(t, 0, []byte{0, 1}) }); err != nil {
		t.Fatalf("host: got error %v, want none", err)
	}
	report, readErr := os.ReadFile(filepath.Join(root, "forgetful-2", fuzz.ReportFile))
	tests := []struct {
		name string
		ok   bool
		got  string
		want string
	}{
		{"failure - counted - pass", f.tally.failures == 1 && f.tally.runs == 1,
			fmt.Sprintf("%d failures in %d runs", f.tally.failures, f.tally.runs), "1 failure in 1 run"},
		{"failure - printed with its report path - pass",
			strings.Contains(out.String(), "FINDING 1: converged,synced-after-initial,live") && strings.Contains(out.String(), filepath.Join(root, "forgetful-2", fuzz.ReportFile)),
			out.String(), "FINDING 1 with its signature and the report path under forgetful-2"},
		{"failure - report written next to an earlier one - pass", readErr == nil, fmt.Sprint(readErr), "a readable report.txt"},
		{"failure - timeline path printed - pass", strings.Contains(out.String(), "fuzz: timeline "+filepath.Join(root, "forgetful-2", fuzz.TimelineFile)),
			out.String(), "fuzz: timeline <dir>/timeline.html"},
		{"failure - timeline written beside the report - pass", fileExists(filepath.Join(root, "forgetful-2", fuzz.TimelineFile)),
			"no " + fuzz.TimelineFile, "one"},
		{"failure - report names the invariant - pass", strings.Contains(string(report), "invariant converged"), string(report), "invariant converged"},
		{"failure - report names the cassette given - pass",
			strings.Contains(string(report), "cassette: "+watchlistCassette), string(report), "cassette: " + watchlistCassette},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Errorf("got %s, want %s", tc.got, tc.want)
			}
		})
	}
}

// TestFuzzFindsWatchListStorm runs the README's main job for a few
// seconds: client-go's reflector restarts a WatchList stream that ends
// before its initial-events-end bookmark at once, with no backoff
// (kubernetes/kubernetes#140890). It is a shipped known finding: the job
// counts it and goes on (exit 0, no report); --report-known turns it back
// into a failure, whose report names the reflector's hot loop.
func TestFuzzFindsWatchListStorm(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes for up to 20 seconds")
	}
	known := t.TempDir()
	codeKnown, outKnown, stderrKnown := runCLI("fuzz", "--duration", "10s", "--seed", "1", "--artifacts", known, watchlistCassette)
	knownReports, _ := filepath.Glob(filepath.Join(known, "*", fuzz.ReportFile))
	artifacts := t.TempDir()
	code, out, stderr := runCLI("fuzz", "--duration", "10s", "--seed", "1", "--report-known", "kubernetes#140890", "--artifacts", artifacts, watchlistCassette)
	reports, _ := filepath.Glob(filepath.Join(artifacts, "*", fuzz.ReportFile))
	var storm string
	for _, r := range reports {
		if b, err := os.ReadFile(r); err == nil && strings.Contains(string(b), "signature: ") && strings.Contains(string(b), "@ k8s.io/client-go/tools/cache.(*Reflector).watchList") {
			storm = string(b)
		}
	}
	checks := []struct {
		name string
		ok   bool
		got  string
		want string
	}{
		{"fuzz - WatchList storm known - exit code 0 - pass", codeKnown == 0, fmt.Sprintf("exit %d, stderr %s", codeKnown, stderrKnown), "exit 0"},
		{"fuzz - WatchList storm known - no report - pass", len(knownReports) == 0, fmt.Sprint(knownReports), "no report"},
		{"fuzz - WatchList storm known - the summary counts it - pass",
			regexp.MustCompile(`(?m)^seed 1: \d+ runs, 0 findings \(0 failing runs\), 1 known bug \(kubernetes#140890, [1-9]\d* runs\)`).MatchString(outKnown),
			outKnown, "a summary line counting kubernetes#140890's runs"},
		{"fuzz - WatchList storm reported - exit code 1 - fail", code == 1, fmt.Sprintf("exit %d, stderr %s", code, stderr), "exit 1"},
		{"fuzz - WatchList storm reported - a report with the reflector's signature - fail", storm != "", out, "a report.txt whose signature names the reflector's watchList"},
		{"fuzz - WatchList storm reported - the minimized plan keeps a persistent fault - fail",
			regexp.MustCompile(`(?m)^plan: .*from=\d+`).MatchString(storm), storm, "plan: ...,from=N"},
		{"fuzz - WatchList storm reported - one report per signature - fail", len(reports) == len(regexp.MustCompile(`(?m)^finding \d+: `).FindAllString(out, -1)),
			fmt.Sprintf("%d reports\n%s", len(reports), out), "one report per finding line"},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Errorf("got %s, want %s", c.got, c.want)
			}
		})
	}
}

// TestFuzzFindingsBySignature runs one failing target on two inputs: one
// finding, one report, two runs counted, and the report says so.
func TestFuzzFindingsBySignature(t *testing.T) {
	c, err := fuzz.NewCampaign(fuzz.Options{Cassettes: []string{watchlistCassette}, Target: forgetful})
	if err != nil {
		t.Fatalf("NewCampaign: got error %v, want none", err)
	}
	root := t.TempDir()
	var out bytes.Buffer
	f := newFuzzer([]*fuzz.Campaign{c}, root, &out)
	if err := bubble.Host(func(t *testing.T) {
		f.one(t, 0, []byte{0, 1})
		f.one(t, 0, []byte{0, 0})
	}); err != nil {
		t.Fatalf("host: got error %v, want none", err)
	}
	f.writeFindings(&out, 3)
	dirs, _ := filepath.Glob(filepath.Join(root, "*"))
	report, _ := os.ReadFile(filepath.Join(root, "forgetful-1", fuzz.ReportFile))
	tests := []struct {
		name string
		ok   bool
		got  string
		want string
	}{
		{"findings - same signature on both paths - one finding - pass", len(f.findings) == 1 && f.findings[0].runs == 2,
			fmt.Sprintf("%d findings", len(f.findings)), "1 finding of 2 runs"},
		{"findings - one report directory - pass", len(dirs) == 1, fmt.Sprint(dirs), "one directory"},
		{"findings - the summary line - pass", strings.Contains(out.String(), "finding 1: converged,synced-after-initial,live: 2 runs, smallest plan no fault: "),
			out.String(), "finding 1: SIGNATURE: 2 runs, smallest plan no fault: REPORT"},
		{"findings - the report counts the runs - pass", strings.Contains(string(report), "runs with this signature: 2 of 2 (lwreplay fuzz --seed 3)"),
			string(report), "runs with this signature: 2 of 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Errorf("got %s, want %s", tc.got, tc.want)
			}
		})
	}
}

// fileExists reports whether path names a regular file.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}
