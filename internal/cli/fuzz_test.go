package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

const watchlistCassette = "../../cassettes/real-configmaps-pods-watchlist.yaml"

func TestFuzzRun(t *testing.T) {
	if testing.Short() {
		t.Skip("fuzzes for two seconds")
	}
	artifacts := t.TempDir()
	// WatchList off: on, client-go 0.37.2's reflector storms (see
	// TestFuzzFindsWatchListStorm)
	profile := filepath.Join(t.TempDir(), "cpu.prof")
	code, out, stderr := runCLI("fuzz", "--duration", "2s", "--seed", "1", "--watchlist", "off", "--artifacts", artifacts, "--cpuprofile", profile, watchlistCassette)
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
		{"fuzz - short run prints the table header - pass", strings.Contains(out, "INVARIANT \\ FAULT") && strings.Contains(out, " none"), "a table header with a none column"},
		{"fuzz - short run writes the CPU profile - pass", isGzip(profile), "a gzipped profile at " + profile},
		{"fuzz - short run prints the summary - pass", regexp.MustCompile(`(?m)^seed 1: [1-9]\d* runs, 0 findings \(0 failing runs\)`).MatchString(out), "a summary naming seed 1 and the runs"},
	}
	for _, inv := range oracle.Invariants {
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
		{"fuzz - cpuprofile in a missing directory - fail", []string{"fuzz", "--cpuprofile", filepath.Join(dir, "no", "cpu.prof"), watchlistCassette}, 1, "--cpuprofile: open"},
		{"fuzz - empty cpuprofile - fail", []string{"fuzz", "--cpuprofile", "", watchlistCassette}, 2, "--cpuprofile"},
	}
	runErrorCases(t, tests)
}

// isGzip reports whether path holds a gzip stream (as pprof writes a
// profile).
func isGzip(path string) bool {
	b, err := os.ReadFile(path)
	return err == nil && len(b) > 2 && b[0] == 0x1f && b[1] == 0x8b
}

// TestFuzzFindsWatchListStorm runs the README's main job for a few
// seconds. client-go's reflector restarts a WatchList stream that ends
// before its initial-events-end bookmark at once, with no backoff
// (kubernetes/kubernetes#140890). It is a shipped known finding: the job
// counts it and goes on (exit 0, no report). --report-known turns it back
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
