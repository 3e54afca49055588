// Package engine is what lwreplay knows of go test's fuzzing engine: the
// part it gives a process, its corpus files, and the notes a worker leaves
// the coordinator.
package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/internal/report"
)

// Mode is the part go test's fuzzing engine gives a process.
type Mode int

const (
	// Plain runs seeds and saved inputs (go test without -fuzz): each
	// failure is reported, and its report written, as it happens.
	Plain Mode = iota
	// Worker runs inputs for the engine, which re-runs and minimizes a
	// failing one, and drops a failure that does not repeat: nothing is
	// written there.
	Worker
	// Coordinator is the process go test started with -fuzz. Once the engine
	// has minimized a failure and saved its input, the report is written for
	// that input, once.
	Coordinator
)

// String returns "plain", "worker" or "coordinator".
func (m Mode) String() string {
	switch m {
	case Plain:
		return "plain"
	case Worker:
		return "worker"
	case Coordinator:
		return "coordinator"
	}
	return fmt.Sprintf("Mode(%d)", int(m))
}

// Current reads go test's flags.
func Current() Mode {
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		return Worker
	}
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		return Coordinator
	}
	return Plain
}

// CorpusDir is where go test saves a fuzz target's failing inputs,
// relative to the package directory it runs in.
func CorpusDir(fuzzName string) string {
	return filepath.Join("testdata", "fuzz", fuzzName)
}

// NewestInput returns the input go test saved most recently in dir, if it
// was saved at or after since.
func NewestInput(dir string, since time.Time) (data []byte, path string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, "", err
	}
	var newest time.Time
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || e.IsDir() || info.ModTime().Before(since) || !info.ModTime().After(newest) {
			continue
		}
		newest, path = info.ModTime(), filepath.Join(dir, e.Name())
	}
	if path == "" {
		return nil, "", fmt.Errorf("%w: no input saved in %s since %s", report.ErrReport, dir, since.Format(time.RFC3339))
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	data, err = ParseCorpusFile(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return data, path, nil
}

// CorpusFile is data as go test writes a corpus file of one []byte value.
func CorpusFile(data []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", data)
}

// ParseCorpusFile reads a corpus file of one []byte value, as go test
// writes it: "go test fuzz v1" and a line []byte("...").
func ParseCorpusFile(raw []byte) ([]byte, error) {
	lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
	if len(lines) != 2 || string(lines[0]) != "go test fuzz v1" {
		return nil, fmt.Errorf("%w: not a go test corpus file of one value", report.ErrReport)
	}
	v := bytes.TrimSpace(lines[1])
	if !bytes.HasPrefix(v, []byte("[]byte(")) || !bytes.HasSuffix(v, []byte(")")) {
		return nil, fmt.Errorf("%w: value %.40q is not a []byte", report.ErrReport, v)
	}
	s, err := strconv.Unquote(string(v[len("[]byte(") : len(v)-1]))
	if err != nil {
		return nil, fmt.Errorf("%w: value %.40q: %v", report.ErrReport, v, err)
	}
	return []byte(s), nil
}

// NotesDir is where the workers of go test's engine note their failures
// for the coordinator. It is one directory per package directory and fuzz
// target, under the temporary directory; both run in the package's
// directory.
func NotesDir(fuzzName string) string {
	wd, _ := os.Getwd()
	sum := sha256.Sum256([]byte(wd + "\x00" + fuzzName))
	return filepath.Join(os.TempDir(), "lwreplay-fuzz-notes-"+hex.EncodeToString(sum[:8]))
}

// NoteName is the name of the note of input data.
func NoteName(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:12]) + ".txt"
}

// SlowNoteAfter is how long an input may run in a worker before the worker
// notes it as slow. The engine of go test ends the worker at 10 s of real time
// (internal/fuzz: "deadlocked!", not printed). The note comes before that,
// so that the coordinator's report says where the input was.
const SlowNoteAfter = 9 * time.Second

// InputBudget is how long, in real time, one input's check may take in a
// worker: the input's runs, its reference, confirmation and scenario runs.
// Past it the run in hand is cut short (harness.Spec.Deadline), and the
// input is judged nothing: go test's engine would end the worker at 10 s
// and report the input as failing, ending the campaign. A cut run ends at
// its next look, within milliseconds, or is left running a second later
// (harness.DeadlineGrace). So the input returns before SlowNoteAfter.
const InputBudget = 7 * time.Second

// NoteSlowInput notes, should data still be running SlowNoteAfter from
// now, that it was and what every goroutine was doing then. That is the
// worker's note of its failure: the engine ends the worker soon after, and
// reports the input as failing. The returned func stops the timer.
func NoteSlowInput(fuzzName string, data []byte) func() {
	tm := time.AfterFunc(SlowNoteAfter, func() {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		NoteWorkerFailure(fuzzName, data, fmt.Sprintf("the input was still running after %v of real time in a worker "+
			"(go test's engine ends a worker whose input runs 10 s); its goroutines then:\n%s", SlowNoteAfter, buf))
	})
	return func() { tm.Stop() }
}

// NoteWorkerFailure writes report as the worker's note of data's failure.
// It is best effort: a note that cannot be written leaves the
// coordinator's own run the only report.
func NoteWorkerFailure(fuzzName string, data []byte, report string) {
	dir := NotesDir(fuzzName)
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	_ = os.WriteFile(filepath.Join(dir, NoteName(data)), []byte(report), 0o644)
}

// SaveInput writes data into dir as a go test corpus file named by its
// digest (NoteName's, without .txt).
func SaveInput(dir string, data []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	sum := sha256.Sum256(data)
	return os.WriteFile(filepath.Join(dir, hex.EncodeToString(sum[:12])), CorpusFile(data), 0o644)
}

// CountSince counts the files in dir written at or after since (0 when dir
// cannot be read).
func CountSince(dir string, since time.Time) int {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		if info, err := e.Info(); err == nil && !e.IsDir() && !info.ModTime().Before(since) {
			n++
		}
	}
	return n
}
