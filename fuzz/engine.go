package fuzz

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/internal/report"
	"github.com/lwreplay/lwreplay/internal/bubble"
)

// engineMode is the part go test's fuzzing engine gives a process.
type engineMode int

const (
	// plainMode runs seeds and saved inputs (go test without -fuzz): each
	// failure is reported, and its report written, as it happens.
	plainMode engineMode = iota
	// workerMode runs inputs for the engine, which re-runs and minimizes a
	// failing one, and drops a failure that does not repeat: nothing is
	// written there.
	workerMode
	// coordinatorMode is the process go test started with -fuzz: once
	// the engine has minimized a failure and saved its input, the report
	// is written for that input, once.
	coordinatorMode
)

// String returns "plain", "worker" or "coordinator".
func (m engineMode) String() string {
	switch m {
	case plainMode:
		return "plain"
	case workerMode:
		return "worker"
	case coordinatorMode:
		return "coordinator"
	}
	return fmt.Sprintf("engineMode(%d)", int(m))
}

// currentMode reads go test's flags.
func currentMode() engineMode {
	if f := flag.Lookup("test.fuzzworker"); f != nil && f.Value.String() == "true" {
		return workerMode
	}
	if f := flag.Lookup("test.fuzz"); f != nil && f.Value.String() != "" {
		return coordinatorMode
	}
	return plainMode
}

// corpusDir is where go test saves a fuzz target's failing inputs,
// relative to the package directory it runs in.
func corpusDir(fuzzName string) string {
	return filepath.Join("testdata", "fuzz", fuzzName)
}

// newestInput returns the input go test saved most recently in dir, if it
// was saved at or after since.
func newestInput(dir string, since time.Time) (data []byte, path string, err error) {
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
		return nil, "", fmt.Errorf("%w: no input saved in %s since %s", ErrReport, dir, since.Format(time.RFC3339))
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, "", err
	}
	data, err = parseCorpusFile(raw)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", path, err)
	}
	return data, path, nil
}

// corpusFile is data as go test writes a corpus file of one []byte value.
func corpusFile(data []byte) []byte {
	return fmt.Appendf(nil, "go test fuzz v1\n[]byte(%q)\n", data)
}

// parseCorpusFile reads a corpus file of one []byte value, as go test
// writes it: "go test fuzz v1" and a line []byte("...").
func parseCorpusFile(raw []byte) ([]byte, error) {
	lines := bytes.Split(bytes.TrimSpace(raw), []byte("\n"))
	if len(lines) != 2 || string(lines[0]) != "go test fuzz v1" {
		return nil, fmt.Errorf("%w: not a go test corpus file of one value", ErrReport)
	}
	v := bytes.TrimSpace(lines[1])
	if !bytes.HasPrefix(v, []byte("[]byte(")) || !bytes.HasSuffix(v, []byte(")")) {
		return nil, fmt.Errorf("%w: value %.40q is not a []byte", ErrReport, v)
	}
	s, err := strconv.Unquote(string(v[len("[]byte(") : len(v)-1]))
	if err != nil {
		return nil, fmt.Errorf("%w: value %.40q: %v", ErrReport, v, err)
	}
	return []byte(s), nil
}

// reportRetries is how many times the coordinator runs a saved input for
// its report before it writes the report from the worker's note.
const reportRetries = 5

// notesDir is where the workers of go test's engine note their failures
// for the coordinator: one directory per package directory and fuzz
// target, under the temporary directory (both run in the package's
// directory).
func notesDir(fuzzName string) string {
	wd, _ := os.Getwd()
	sum := sha256.Sum256([]byte(wd + "\x00" + fuzzName))
	return filepath.Join(os.TempDir(), "lwreplay-fuzz-notes-"+hex.EncodeToString(sum[:8]))
}

// noteName is the name of the note of input data.
func noteName(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:12]) + ".txt"
}

// slowNoteAfter is how long an input may run in a worker before the
// worker notes it as slow: before go test's engine ends the worker at 10 s
// of real time (internal/fuzz: "deadlocked!", not printed), so that the
// coordinator's report says where it was.
const slowNoteAfter = 8 * time.Second

// noteSlowInput notes, should data still be running slowNoteAfter from
// now, that it was and what every goroutine was doing then, as the
// worker's note of its failure (the engine ends the worker soon after,
// and reports the input as failing). The returned func stops the timer.
func noteSlowInput(fuzzName string, data []byte) func() {
	tm := time.AfterFunc(slowNoteAfter, func() {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		noteWorkerFailure(fuzzName, data, fmt.Sprintf("the input was still running after %v of real time in a worker "+
			"(go test's engine ends a worker whose input runs 10 s); its goroutines then:\n%s", slowNoteAfter, buf))
	})
	return func() { tm.Stop() }
}

// noteWorkerFailure writes report as the worker's note of data's failure
// (best effort: a note that cannot be written leaves the coordinator's
// own run the only report).
func noteWorkerFailure(fuzzName string, data []byte, report string) {
	dir := notesDir(fuzzName)
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	_ = os.WriteFile(filepath.Join(dir, noteName(data)), []byte(report), 0o644)
}

// reportSaved writes the report of the input go test's engine saved for
// f after since, running it once more (in a hosted test: f's own T is
// the coordinator's), up to reportRetries times until it fails again, and
// logs where it went. An input that does not fail again still gets its
// report, from the failure the worker noted (and the report says so).
func (c *Campaign) reportSaved(f *testing.F, since time.Time) {
	data, path, err := newestInput(corpusDir(f.Name()), since)
	if err != nil {
		f.Logf("lwreplay: no report written (%v); a seed that fails is reported by go test -run=%s, which writes its report", err, f.Name())
		return
	}
	defer os.RemoveAll(notesDir(f.Name()))
	var saved *Saved
	var saveErr error
	var out *Outcome
	runs := 0
	hostErr := bubble.Host(func(t *testing.T) {
		for runs < reportRetries {
			runs++
			if out = c.Check(t, data); out.Failed() {
				saved, saveErr = c.Save(t, out, artifactDir(f, c.target.Name, out))
				return
			}
		}
	})
	switch {
	case hostErr != nil:
		f.Logf("lwreplay: %s: the run for the report failed: %v", path, hostErr)
	case !out.Failed():
		dir, err := c.saveNoted(f, data, out, runs)
		if err != nil {
			f.Logf("lwreplay: %s: held on %d runs for the report, and its worker's failure could not be written: %v", path, runs, err)
			return
		}
		f.Logf("lwreplay: %s: held on %d runs for the report; the worker's failure: %s", path, runs, filepath.Join(dir, ReportFile))
	case saved == nil:
		f.Logf("lwreplay: %s: no report written: %v", path, saveErr)
	default:
		f.Logf("lwreplay: report for %s: %s\nreproducer: %s", path, filepath.Join(saved.Dir, ReportFile), filepath.Join(saved.Dir, ReproducerFile))
		if saveErr != nil {
			f.Logf("lwreplay: report incomplete: %v", saveErr)
		}
	}
}

// saveNoted writes the report of an input that failed in a worker but
// held on the coordinator's runs: the worker's noted failure, the input
// and its plan, and what the runs for the report came to. A run that is
// not a function of its input is a defect of lwreplay's, and the report
// says so.
func (c *Campaign) saveNoted(f *testing.F, data []byte, held *Outcome, runs int) (string, error) {
	note, err := os.ReadFile(filepath.Join(notesDir(f.Name()), noteName(data)))
	if err != nil {
		note = []byte("(the worker's note of its failure is missing)")
	}
	dir := artifactDir(f, c.target.Name, held)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("%w: %v", ErrReport, err)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "lwreplay fuzz failure: target %s\n\n", c.target.Name)
	fmt.Fprintf(&b, "go test's fuzzing engine saw this input fail in a worker, with:\n%s\n\n", note)
	fmt.Fprintf(&b, "it held on %d runs for this report (plan %s), so no reproducer was recorded: a run that is not a "+
		"function of its input is a defect of lwreplay's; please report it with this file and the input\n", runs, planText(held.Plan))
	fmt.Fprintf(&b, "seed input: []byte(%q)\n", data)
	err = errors.Join(
		report.WriteFile(dir, PlanFile, faults.FormatPlan(held.Plan)),
		report.WriteFile(dir, InputFile, corpusFile(data)),
		report.WriteFile(dir, ReportFile, []byte(b.String())))
	return dir, err
}
