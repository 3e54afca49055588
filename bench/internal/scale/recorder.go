package scale

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/recorder"
)

// measureRecorder measures the process CPU time of a typed watch through
// the in-process transport. The watch reads the first Events events of the
// resource with the most. It runs without and with the recorder (default
// options) wrapped around the transport, its Close (which saves the
// cassette) included. It alternates Rounds times, so that a shared
// machine's noise falls on both. It reports the sums ("cpu_off", "cpu_on",
// in seconds), the events of one watch ("events") and the rounds
// ("rounds").
func measureRecorder(ctx context.Context, job Job) (Figures, error) {
	h, err := loadHistory(job.Cassette)
	if err != nil {
		return nil, err
	}
	var lg *history.Log
	for _, l := range h.Logs {
		if lg == nil || l.End() > lg.End() {
			lg = l
		}
	}
	if lg == nil {
		return nil, fmt.Errorf("%w: %s: no resource", ErrMeasure, job.Cassette)
	}
	n := min(job.events(), lg.End())
	dir, err := tempDir()
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	rt := newServer(h)
	var off, on float64
	for i := range job.rounds() {
		cs, err := replayClient(rt, nil)
		if err != nil {
			return nil, err
		}
		cpu := cpuTime()
		if err := typedWatch(ctx, cs, lg, n); err != nil {
			return nil, err
		}
		off += (cpuTime() - cpu).Seconds()

		cpu = cpuTime()
		rec, err := recorder.New(filepath.Join(dir, fmt.Sprintf("round%d.yaml", i)))
		if err != nil {
			return nil, fmt.Errorf("%w: recorder: %v", ErrMeasure, err)
		}
		if cs, err = replayClient(rt, rec.Wrap); err != nil {
			return nil, err
		}
		if err := typedWatch(ctx, cs, lg, n); err != nil {
			return nil, err
		}
		if err := rec.Close(); err != nil {
			return nil, fmt.Errorf("%w: recorder: close: %v", ErrMeasure, err)
		}
		on += (cpuTime() - cpu).Seconds()
	}
	return Figures{"cpu_off": off, "cpu_on": on, "events": float64(n), "rounds": float64(job.rounds())}, nil
}
