package tombstone

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz"
)

// shimF is the shape of go-118-fuzz-build's testing shim: the input in
// Data, and a T whose Fatalf ends the input.
type shimF struct {
	Data  []byte
	T     *shimT
	fatal []string
}

func (f *shimF) Helper()           {}
func (f *shimF) Add(...any)        {}
func (f *shimF) Fatal(args ...any) { f.fatal = append(f.fatal, fmt.Sprint(args...)) }
func (f *shimF) Failed() bool      { return len(f.fatal) > 0 }
func (t *shimT) Fatalf(format string, args ...any) {
	t.fatal = append(t.fatal, fmt.Sprintf(format, args...))
}

// shimT records the shim T's Fatalf calls.
type shimT struct{ fatal []string }

// badF is a fuzz argument that is neither *testing.F nor a shim.
type badF struct{ fatal []string }

func (f *badF) Helper()           {}
func (f *badF) Add(...any)        {}
func (f *badF) Fatal(args ...any) { f.fatal = append(f.fatal, fmt.Sprint(args...)) }
func (f *badF) Failed() bool      { return len(f.fatal) > 0 }

func TestRunLibFuzzer(t *testing.T) {
	opts := func(target fuzz.Target) fuzz.Options {
		return fuzz.Options{
			Cassettes:  fuzz.Glob("../../cassettes/real-configmaps-pods-*.yaml"),
			Target:     target,
			Invariants: []string{"converged", "clean-stop", "mirror-matches-truth"},
			Extra:      []fuzz.Invariant{mirrorMatchesTruth},
		}
	}
	tests := []struct {
		name       string
		target     fuzz.Target
		wantCrash  bool
		wantReport bool
	}{
		{name: "libFuzzer shim - input found by fuzzing, planted handler - crash with report, fail", target: mirrorTarget, wantCrash: true, wantReport: true},
		{name: "libFuzzer shim - input found by fuzzing, fixed handler - no crash - pass", target: fixedMirrorTarget},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			t.Setenv(fuzz.ArtifactsEnv, dir)
			st := &shimT{}
			fuzz.Run(&shimF{Data: foundByFuzzing, T: st}, opts(tc.target))
			if got := len(st.fatal) > 0; got != tc.wantCrash {
				t.Fatalf("crash: got %v, want %v (%q)", got, tc.wantCrash, st.fatal)
			}
			reports, _ := filepath.Glob(filepath.Join(dir, "*", fuzz.ReportFile))
			repros, _ := filepath.Glob(filepath.Join(dir, "*", fuzz.ReproducerFile))
			if got := len(reports) == 1 && len(repros) == 1; got != tc.wantReport {
				t.Fatalf("report files: got %q and %q, want one of each: %v", reports, repros, tc.wantReport)
			}
			if !tc.wantReport {
				return
			}
			if !strings.Contains(st.fatal[0], reports[0]) {
				t.Errorf("crash message: got %q, want it to name %s", st.fatal[0], reports[0])
			}
			raw, err := os.ReadFile(reports[0])
			if err != nil {
				t.Fatalf("read report: got error %v, want none", err)
			}
			if !strings.Contains(string(raw), "invariant clean-stop") {
				t.Errorf("report: got %q, want it to name invariant clean-stop", raw)
			}
		})
	}
}

func TestRunLibFuzzerUnknownArgument(t *testing.T) {
	t.Parallel()
	f := &badF{}
	fuzz.Run(f, fuzz.Options{Cassettes: fuzz.Glob("../../cassettes/real-configmaps-pods-*.yaml"), Target: mirrorTarget})
	if len(f.fatal) != 1 || !strings.Contains(f.fatal[0], "libFuzzer shim") {
		t.Errorf("unknown fuzz argument - *badF - fail: got Fatal calls %q, want one naming the libFuzzer shim", f.fatal)
	}
}
