package fuzz

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

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

// reportSaved writes the report of the input go test's engine saved for
// f after since, running it once more (in a hosted test: f's own T is
// the coordinator's), and logs where it went.
func (c *Campaign) reportSaved(f *testing.F, since time.Time) {
	data, path, err := newestInput(corpusDir(f.Name()), since)
	if err != nil {
		f.Logf("lwreplay: no report written (%v); a seed that fails is reported by go test -run=%s, which writes its report", err, f.Name())
		return
	}
	var saved *Saved
	var saveErr error
	var out *Outcome
	hostErr := bubble.Host(func(t *testing.T) {
		out = c.Check(t, data)
		if out.Failed() {
			saved, saveErr = c.Save(t, out, artifactDir(f, c.target.Name, out))
		}
	})
	switch {
	case hostErr != nil:
		f.Logf("lwreplay: %s: the run for the report failed: %v", path, hostErr)
	case !out.Failed():
		f.Logf("lwreplay: %s: held on its run for the report (no report written)", path)
	case saved == nil:
		f.Logf("lwreplay: %s: no report written: %v", path, saveErr)
	default:
		f.Logf("lwreplay: report for %s: %s\nreproducer: %s", path, filepath.Join(saved.Dir, ReportFile), filepath.Join(saved.Dir, ReproducerFile))
		if saveErr != nil {
			f.Logf("lwreplay: report incomplete: %v", saveErr)
		}
	}
}
