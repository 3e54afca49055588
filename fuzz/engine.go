package fuzz

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/internal/engine"
	"github.com/lwreplay/lwreplay/fuzz/internal/report"
	"github.com/lwreplay/lwreplay/internal/bubble"
)

// reportRetries is how many times the coordinator runs a saved input for
// its report before it writes the report from the worker's note.
const reportRetries = 5

// reportSaved writes the report of the input go test's engine saved for f
// after since, and logs where it went. It runs the input once more, up to
// reportRetries times until it fails again. (In a hosted test, f's own T
// is the coordinator's.) An input that does not fail again still gets its
// report, from the failure the worker noted, and the report says so.
func (c *Campaign) reportSaved(f *testing.F, since time.Time) {
	data, path, err := engine.NewestInput(engine.CorpusDir(f.Name()), since)
	if err != nil {
		f.Logf("lwreplay: no report written (%v); a seed that fails is reported by go test -run=%s, which writes its report", err, f.Name())
		return
	}
	defer os.RemoveAll(engine.NotesDir(f.Name()))
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
		dir, err := c.saveNoted(f, data, out, runs, since)
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

// workerEnd is what a worker that noted nothing printed as it ended:
// its crash output (engine.KeepCrashOutput), or that there is none.
func workerEnd(fuzzName string, since time.Time) string {
	crashes, err := engine.Crashes(fuzzName, since)
	switch {
	case err != nil:
		return fmt.Sprintf("(the worker noted nothing, and its crash output could not be read: %v)", err)
	case len(crashes) == 0:
		return "(the worker noted nothing and printed no crash)"
	}
	var b strings.Builder
	for _, c := range crashes {
		fmt.Fprintf(&b, "the worker noted nothing; it printed as it ended (%s):\n%s\n", filepath.Base(c.Path), c.Text)
	}
	return b.String()
}

// saveNoted writes the report of an input that failed in a worker but
// held on the coordinator's runs. The report holds the worker's noted
// failure, the input and its plan, and what the runs for the report came
// to. A run that is not a function of its input is a defect of lwreplay's,
// and the report says so.
func (c *Campaign) saveNoted(f *testing.F, data []byte, held *Outcome, runs int, since time.Time) (string, error) {
	note, err := os.ReadFile(filepath.Join(engine.NotesDir(f.Name()), engine.NoteName(data)))
	if err != nil {
		note = []byte(workerEnd(f.Name(), since))
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
		report.WriteFile(dir, InputFile, engine.CorpusFile(data)),
		report.WriteFile(dir, ReportFile, []byte(b.String())))
	return dir, err
}
