package fuzz

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/lwreplay/lwreplay/internal/bubble"
)

// F is what Run needs of a fuzz target's argument: go test's *testing.F,
// or the testing shim a libFuzzer build hands the target once per input.
// That build is go-118-fuzz-build, as OSS-Fuzz and ClusterFuzzLite run it.
type F interface {
	Helper()
	Add(args ...any)
	Fatal(args ...any)
	Failed() bool
}

// LibFuzzerArtifacts is where a libFuzzer build writes its failure
// reports when ArtifactsEnv is unset, relative to the working directory.
const LibFuzzerArtifacts = "lwreplay-artifacts"

// shim is the part of go-118-fuzz-build's testing shim Run reads. Its F
// holds the input in Data and a T, whose Fatalf ends the input as a crash.
type shim struct {
	data  []byte
	fatal func(format string, args ...any)
}

// fatalT is the shim's T as far as Run uses it.
type fatalT interface {
	Fatalf(format string, args ...any)
}

// shimOf reads f's Data and T fields.
func shimOf(f F) (shim, error) {
	v := reflect.ValueOf(f)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return shim{}, fmt.Errorf("%w: got %T, want *testing.F or a libFuzzer shim", ErrShim, f)
	}
	data, t := v.Elem().FieldByName("Data"), v.Elem().FieldByName("T")
	if !data.IsValid() || data.Type() != reflect.TypeFor[[]byte]() {
		return shim{}, fmt.Errorf("%w: %T: got no Data []byte field, want a libFuzzer shim's", ErrShim, f)
	}
	if !t.IsValid() || !t.CanInterface() {
		return shim{}, fmt.Errorf("%w: %T: got no T field, want a libFuzzer shim's", ErrShim, f)
	}
	ft, ok := t.Interface().(fatalT)
	if !ok || (t.Kind() == reflect.Pointer && t.IsNil()) {
		return shim{}, fmt.Errorf("%w: %T: field T is %s, want a libFuzzer shim's T with Fatalf", ErrShim, f, t.Type())
	}
	return shim{data: data.Bytes(), fatal: ft.Fatalf}, nil
}

// ErrShim says Run got a fuzz argument that is neither *testing.F nor a
// libFuzzer shim it can read.
var ErrShim = errors.New("fuzz: unknown fuzz argument")

// campaigns holds, per call of Run (its caller and its Options), the
// campaign a libFuzzer build loaded for its first input. The shim calls
// the target once per input, and cassettes load once per process.
var campaigns sync.Map // campaignKey → *libFuzzerCampaign

// campaignKey names a call of Run: the caller, and its Options printed
// (Options hold slices and funcs, which do not compare).
type campaignKey struct {
	pc   uintptr
	opts string
}

// libFuzzerCampaign is a campaign loaded once.
type libFuzzerCampaign struct {
	once sync.Once
	c    *Campaign
	err  error
}

// runLibFuzzer runs the one input a libFuzzer shim holds. The shim's Data
// is the input, byte for byte as go test's. So a libFuzzer crash file
// replays under go test and back. The run is hosted in a *testing.T of its
// own (internal/bubble), as synctest bubbles need one. A failure is
// minimized and saved (report.txt, reproducer.yaml, ... under
// ArtifactsEnv, or LibFuzzerArtifacts when that is unset). It ends the
// input through the shim's T, which libFuzzer records as a crash.
func runLibFuzzer(f F, o Options) {
	s, err := shimOf(f)
	if err != nil {
		f.Fatal(err)
		return
	}
	seedableRand.Do(allowRandSeed)
	pc, _, _, _ := runtime.Caller(2)
	v, _ := campaigns.LoadOrStore(campaignKey{pc: pc, opts: fmt.Sprintf("%#v", o)}, &libFuzzerCampaign{})
	lc := v.(*libFuzzerCampaign)
	lc.once.Do(func() {
		if exe, err := os.Executable(); err == nil {
			o.Cassettes = besideBinary(o.Cassettes, filepath.Join(filepath.Dir(exe), ShippedCassettesDir))
		}
		lc.c, lc.err = NewCampaign(o)
	})
	if lc.err != nil {
		s.fatal("lwreplay: %v", lc.err)
		return
	}
	if msg := checkHosted(lc.c, s.data); msg != "" {
		s.fatal("%s", msg)
	}
}

// checkHosted runs data through c in a hosted *testing.T and returns the
// failure message ("" when the input passed).
func checkHosted(c *Campaign, data []byte) string {
	var out *Outcome
	var saved *Saved
	var saveErr error
	hostErr := bubble.Host(func(t *testing.T) {
		out = c.Check(t, data)
		if out.Failed() {
			saved, saveErr = c.Save(t, out, libFuzzerDir(c.target.Name, out))
		}
	})
	switch {
	case out != nil && out.Failed() && saved == nil:
		return fmt.Sprintf("target %s broke invariants:\n%s\n(no report written: %v)", c.target.Name, out.Report, saveErr)
	case out != nil && out.Failed():
		note := ""
		if saveErr != nil {
			note = fmt.Sprintf("\n(report incomplete: %v)", saveErr)
		}
		return fmt.Sprintf("target %s broke invariants:\n%s\nreport: %s\nreproducer: %s%s", c.target.Name, saved.Outcome.Report,
			filepath.Join(saved.Dir, ReportFile), filepath.Join(saved.Dir, ReproducerFile), note)
	case hostErr != nil:
		return fmt.Sprintf("target %s: input %q: the run failed: %v", c.target.Name, data, hostErr)
	}
	return ""
}

// libFuzzerDir is where a libFuzzer build saves the report of out.
func libFuzzerDir(target string, out *Outcome) string {
	root := os.Getenv(ArtifactsEnv)
	if root == "" {
		root = LibFuzzerArtifacts
	}
	return filepath.Join(root, artifactName(target, out))
}

// ShippedCassettesDir is where, beside a libFuzzer binary, the cassettes
// of its fuzz target may be shipped. OSS-Fuzz and ClusterFuzzLite run a
// binary from its output directory, away from the source tree.
const ShippedCassettesDir = "cassettes"

// besideBinary replaces each path of cassettes that names nothing from the
// working directory with the files of its base name in dir, when there are
// any. The base name may be a glob pattern too.
func besideBinary(cassettes []string, dir string) []string {
	out := make([]string, 0, len(cassettes))
	for _, p := range cassettes {
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
			continue
		}
		names, err := filepath.Glob(filepath.Join(dir, filepath.Base(p)))
		if err != nil || len(names) == 0 {
			out = append(out, p)
			continue
		}
		sort.Strings(names)
		out = append(out, names...)
	}
	return out
}

// seedableRand makes math/rand's Seed take effect once per process.
var seedableRand sync.Once

// allowRandSeed turns on GODEBUG=randseednop=0 unless the process set
// randseednop itself. The main package go-118-fuzz-build generates carries
// no //go:debug line of the target's. Without it, each run's seeding of
// client-go's math/rand source (its backoff jitter) is a no-op. The go
// command's runtime re-reads GODEBUG when os.Setenv changes it.
func allowRandSeed() {
	cur := os.Getenv("GODEBUG")
	if strings.Contains(cur, "randseednop=") {
		return
	}
	if cur != "" {
		cur += ","
	}
	os.Setenv("GODEBUG", cur+"randseednop=0")
}
