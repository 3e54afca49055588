package fuzz

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/internal/engine"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

// plantedEnv names the cassette FuzzPlanted replays; unset, it skips.
const plantedEnv = "LWREPLAY_PLANTED"

// watchErrorsTarget is an informer that takes every watch error as a
// failure of its own (Probe.Error). Most faults make one, so go test -fuzz
// finds it at once.
var watchErrorsTarget = Target{Name: "watch-errors", Doc: "an informer that records every watch error as its own", Run: func(ctx context.Context, env *Env) error {
	lw, err := env.ListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return err
	}
	inf := cache.NewSharedIndexInformer(lw, &unstructured.Unstructured{}, 0, cache.Indexers{})
	if err := inf.SetWatchErrorHandlerWithContext(func(_ context.Context, _ *cache.Reflector, err error) {
		env.Probe.Error(err)
	}); err != nil {
		return err
	}
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{})
	if err != nil {
		return err
	}
	env.Probe.SetSynced(reg.HasSynced)
	env.Probe.SetStore(inf.GetStore().List)
	inf.RunWithContext(ctx)
	return nil
}}

// FuzzPlanted is TestOneReportPerFind's planted failure.
func FuzzPlanted(f *testing.F) {
	path := os.Getenv(plantedEnv)
	if path == "" {
		f.Skip("run by TestOneReportPerFind")
	}
	Run(f, Options{Cassettes: []string{path}, Target: watchErrorsTarget, Invariants: []string{"clean-stop"}, WatchList: new(true)})
}

// runFuzzEngine builds this package's test binary and runs go test's
// fuzzing engine on fuzz test name for at most 120 s, in a temporary
// directory that is also its TMPDIR, with args added. The fuzz test reads
// the path of the shipped cassette from env. It returns the directory,
// where the reports go, and go test's output and error.
func runFuzzEngine(t *testing.T, name, env, cassette string, args ...string) (tmp, artifacts string, out []byte, err error) {
	t.Helper()
	tmp = t.TempDir()
	bin := filepath.Join(tmp, "fuzz.test")
	if out, err := exec.Command("go", "test", "-c", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go test -c: got error %v, want none:\n%s", err, out)
	}
	path, err := filepath.Abs(filepath.Join("..", "cassettes", cassette))
	if err != nil {
		t.Fatal(err)
	}
	artifacts = filepath.Join(tmp, "artifacts")
	cmd := exec.Command(bin, append([]string{"-test.run=^$", "-test.fuzz=^" + name + "$", "-test.fuzztime=120s",
		"-test.fuzzcachedir=" + filepath.Join(tmp, "cache")}, args...)...)
	cmd.Dir = tmp
	cmd.Env = append(os.Environ(), env+"="+path, ArtifactsEnv+"="+artifacts, "TMPDIR="+tmp)
	out, err = cmd.CombinedOutput()
	return tmp, artifacts, out, err
}

// TestOneReportPerFind runs go test -fuzz on FuzzPlanted, whose every
// watch error is a failure. The engine finds one at once, re-runs and
// minimizes it (many failing executions), and saves one input. Exactly one
// report is written, for that input, and go test's output names it.
func TestOneReportPerFind(t *testing.T) {
	if testing.Short() {
		t.Skip("builds this package's test binary and fuzzes with it")
	}
	tmp, artifacts, out, err := runFuzzEngine(t, "FuzzPlanted", plantedEnv, "real-configmaps-pods-watchlist.yaml", "-test.fuzzminimizetime=100x", "-test.parallel=2")
	if err == nil {
		t.Fatalf("go test -fuzz: got success, want the planted failure:\n%s", out)
	}
	saved := regexp.MustCompile(`Failing input written to (\S+)`).FindSubmatch(out)
	if saved == nil {
		t.Fatalf("go test -fuzz: got no saved input, want one:\n%s", out)
	}
	raw, err := os.ReadFile(filepath.Join(tmp, string(saved[1])))
	if err != nil {
		t.Fatal(err)
	}
	input, err := engine.ParseCorpusFile(raw)
	if err != nil {
		t.Fatalf("saved input: got error %v, want none", err)
	}
	dirs, _ := filepath.Glob(filepath.Join(artifacts, "*"))
	if len(dirs) != 1 {
		t.Fatalf("report directories: got %d (%q), want 1\ngo test said:\n%s", len(dirs), dirs, out)
	}
	report, err := os.ReadFile(filepath.Join(dirs[0], ReportFile))
	if err != nil {
		t.Fatalf("report: got error %v, want one", err)
	}
	checks := []struct {
		name string
		ok   bool
		got  string
		want string
	}{
		{"one report - for the input go test saved - pass", strings.Contains(string(report), fmt.Sprintf("seed input: []byte(%q)", input)),
			string(report), fmt.Sprintf("seed input: []byte(%q)", input)},
		{"one report - named in go test's output - pass", strings.Contains(string(out), filepath.Join(dirs[0], ReportFile)),
			string(out), "the report's path"},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if !c.ok {
				t.Errorf("got %s, want %s", c.got, c.want)
			}
		})
	}
}
