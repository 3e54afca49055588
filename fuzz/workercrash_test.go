package fuzz

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/internal/engine"
)

// crashEnv names the cassette FuzzWorkerCrash replays; unset, it skips.
const crashEnv = "LWREPLAY_WORKER_CRASH"

// workerRuns counts the runs of crashingTarget in this process.
var workerRuns atomic.Int64

// crashingTarget ends its process with a panic nobody recovers at its
// tenth run in a go test -fuzz worker, and does nothing anywhere else: a
// crash no rerun repeats.
var crashingTarget = Target{Name: "worker-crash", Doc: "crashes its fuzzing worker at its tenth run", Run: func(ctx context.Context, env *Env) error {
	if engine.Current() == engine.Worker && workerRuns.Add(1) == 10 {
		go func() { panic("lwreplay test: a worker's crash") }()
	}
	<-ctx.Done()
	return nil
}}

// FuzzWorkerCrash is TestWorkerCrashReported's crashing worker.
func FuzzWorkerCrash(f *testing.F) {
	path := os.Getenv(crashEnv)
	if path == "" {
		f.Skip("run by TestWorkerCrashReported")
	}
	Run(f, Options{Cassettes: []string{path}, Target: crashingTarget, Invariants: []string{"clean-stop"}})
}

// TestWorkerCrashReported runs go test -fuzz on FuzzWorkerCrash, whose
// worker crashes once. go test drops a worker's output and says only
// "fuzzing process hung or terminated unexpectedly". The input holds on
// the coordinator's reruns, so its report comes from the worker: it must
// give the crash's panic and stack.
func TestWorkerCrashReported(t *testing.T) {
	if testing.Short() {
		t.Skip("builds this package's test binary and fuzzes with it")
	}
	tmp, artifacts, out, err := runFuzzEngine(t, "FuzzWorkerCrash", crashEnv, "synthetic-configmaps-pods.yaml", "-test.parallel=1")
	if err == nil || !strings.Contains(string(out), "hung or terminated unexpectedly") {
		t.Fatalf("go test -fuzz: got %v, want the worker's crash:\n%s", err, out)
	}
	dirs, _ := filepath.Glob(filepath.Join(artifacts, "*", ReportFile))
	if len(dirs) != 1 {
		t.Fatalf("reports: got %q, want 1\ngo test said:\n%s", dirs, out)
	}
	report, err := os.ReadFile(dirs[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"panic: lwreplay test: a worker's crash", "workercrash_test.go", "held on"} {
		if !strings.Contains(string(report), want) {
			t.Errorf("report: got\n%s\nwant it to hold %q", report, want)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(tmp, "lwreplay-fuzz-notes-*", "*")); len(left) != 0 {
		t.Errorf("notes: got %q left, want none", left)
	}
}
