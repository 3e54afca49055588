// Package bubble runs functions that need a *testing.T outside go test:
// in the lwreplay command and in benchmarks. Above all these are
// testing/synctest bubbles, whose virtual clock makes client-go's waits
// free.
//
// Typical use:
//
//	err := bubble.Host(func(t *testing.T) {
//		synctest.Test(t, func(t *testing.T) { ... })
//	})
//
// Host builds a one-test testing.M with testing.MainStart, and runs f as
// that test. MainStart is meant for go test's generated mains, and not
// covered by the Go 1 promise, so it is kept to this package. The test
// framework's own output (=== RUN, PASS) is discarded; f writes where it
// likes. Profiling and coverage hooks are no-ops: a test binary that is
// itself profiled is not disturbed.
//
// What it relies on is each checked, so that a Go release that changes it
// fails loudly. It relies on testing.MainStart's signature, and the
// method set of its unexported testDeps interface. (deps implements it: a
// change breaks the build of this package.) It relies on the names of the
// test.* flags it resets (overrides: TestOverridesExist fails naming a
// flag that is gone). And it relies on testing writing its own output to
// os.Stdout, which Host swaps for the null device while the test runs.
// TestHostQuiet fails if that output reaches the real standard output.
package bubble

import (
	"errors"
	"flag"
	"io"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"
)

// ErrFailed says the hosted function failed its T (t.Error, t.Fatal or a
// failed synctest.Test).
var ErrFailed = errors.New("bubble: hosted test failed")

var hostMu sync.Mutex

// Host runs f as the only test of a testing.M, and returns once it has
// ended. It returns nil if f did not fail its T, ErrFailed otherwise.
// Hosts run one at a time; f may start subtests and synctest bubbles, also
// concurrently.
func Host(f func(t *testing.T)) error {
	hostMu.Lock()
	defer hostMu.Unlock()
	testing.Init()
	if !flag.Parsed() {
		// testing.M.Run parses the command line unless it was parsed: a
		// program with its own flags keeps them to itself.
		_ = flag.CommandLine.Parse(nil)
	}
	out := os.Stdout
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	defer null.Close()
	os.Stdout = null
	defer func() { os.Stdout = out }()
	defer override()()
	// Inside a test binary run with -cpu a,b, testing runs each test once
	// per listed value. That list is global, so f runs on the first only.
	var once sync.Once
	run := func(t *testing.T) { once.Do(func() { f(t) }) }
	m := testing.MainStart(deps{}, []testing.InternalTest{{Name: "lwreplay", F: run}}, nil, nil, nil)
	if code := m.Run(); code != 0 {
		return ErrFailed
	}
	return nil
}

// overrides are the go test flags a hosted run must not inherit from a
// test binary it runs in. A hosted run runs once, and is never skipped,
// shuffled or fuzzed. It sets no alarm of its own. It opens no profile,
// trace, coverage or test log file over the outer test's. (testing keeps
// such files in globals, and closes them when a run ends.)
var overrides = map[string]string{
	"test.count": "1", "test.cpu": "", "test.skip": "", "test.list": "", "test.shuffle": "off", "test.failfast": "false",
	"test.fuzz": "", "test.run": "", "test.bench": "", "test.cpuprofile": "", "test.memprofile": "",
	"test.blockprofile": "", "test.mutexprofile": "", "test.trace": "", "test.coverprofile": "",
	"test.testlogfile": "", "test.gocoverdir": "", "test.fuzzworker": "false", "test.fuzzcachedir": "",
	"test.timeout": "0",
}

// override sets the overrides and returns a func restoring the flags.
func override() (restore func()) {
	old := map[string]string{}
	for name, v := range overrides {
		if f := flag.Lookup(name); f != nil {
			old[name] = f.Value.String()
			_ = f.Value.Set(v)
		}
	}
	return func() {
		for name, v := range old {
			_ = flag.Lookup(name).Value.Set(v)
		}
	}
}

// corpusEntry is testing's corpus entry type, which the fuzzing hooks of
// the back end name.
type corpusEntry = struct {
	Parent     string
	Path       string
	Data       []byte
	Values     []any
	Generation int
	IsSeed     bool
}

// deps is the testing.M back end: it matches every name and does nothing
// else.
type deps struct{}

func (deps) ImportPath() string                        { return "" }
func (deps) ModulePath() string                        { return "" }
func (deps) MatchString(pat, str string) (bool, error) { return true, nil }
func (deps) SetPanicOnExit0(bool)                      {}
func (deps) StartCPUProfile(io.Writer) error           { return nil }
func (deps) StopCPUProfile()                           {}
func (deps) StartTestLog(io.Writer)                    {}
func (deps) StopTestLog() error                        { return nil }
func (deps) WriteProfileTo(string, io.Writer, int) error {
	return nil
}
func (deps) CoordinateFuzzing(time.Duration, int64, time.Duration, int64, int, []corpusEntry, []reflect.Type, string, string) error {
	return nil
}
func (deps) RunFuzzWorker(func(corpusEntry) error) error { return nil }
func (deps) ReadCorpus(string, []reflect.Type) ([]corpusEntry, error) {
	return nil, nil
}
func (deps) CheckCorpus([]any, []reflect.Type) error { return nil }
func (deps) ResetCoverage()                          {}
func (deps) SnapshotCoverage()                       {}
func (deps) InitRuntimeCoverage() (mode string, tearDown func(string, string) (string, error), snapcov func() float64) {
	return "", nil, nil
}
