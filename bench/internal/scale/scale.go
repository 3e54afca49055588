// Package scale measures lwreplay on production-size cassettes. It
// measures the peak RSS of loading one, and `lwreplay serve` from start
// to a synced informer. It measures in-process replay throughput and the
// recorder's CPU overhead. Each is next to a reference: what client-go
// needs to hold or decode the same objects alone. Each measurement runs
// in a child process of its own (see Job), so that one's memory and CPU
// do not count in another's. Run runs them all for a cassette, and Table
// prints the results. bench/scale.sh runs it on synthetic cassettes of
// 10k and 100k objects with 1M events.
package scale

import (
	"errors"
	"fmt"
)

// ErrMeasure is wrapped by the errors of a measurement that could not be
// made or whose result is not what the cassette holds.
var ErrMeasure = errors.New("scale: measurement failed")

// Measure names one measurement a child process makes.
type Measure int

// The measurements, one child process each.
const (
	// Idle does nothing: its peak RSS is a child's own, before any work.
	Idle Measure = iota
	// Load loads the cassette and builds its history, as serve does.
	Load
	// State finds the largest state and decodes it as typed objects.
	State
	// ServeList times `lwreplay serve` to a synced LIST+WATCH informer.
	ServeList
	// ServeWatchList times `lwreplay serve` to a synced WatchList informer.
	ServeWatchList
	// DecodeList times client-go decoding the initial state's LIST bodies.
	DecodeList
	// Replay times typed watches through every event, in-process, and
	// client-go decoding the same watch bodies alone.
	Replay
	// Recorder measures CPU time of a watch without and with the recorder.
	Recorder
)

var measureNames = []string{"idle", "load", "state", "serve-list", "serve-watchlist", "decode-list", "replay", "recorder"}

// String returns the measurement's name, e.g. "serve-list".
func (m Measure) String() string {
	if m < 0 || int(m) >= len(measureNames) {
		return fmt.Sprintf("Measure(%d)", int(m))
	}
	return measureNames[m]
}

// ParseMeasure returns the measurement String names.
func ParseMeasure(s string) (Measure, error) {
	for i, n := range measureNames {
		if n == s {
			return Measure(i), nil
		}
	}
	return 0, fmt.Errorf("%w: unknown measurement %q", ErrMeasure, s)
}

// MarshalText writes the measurement's name.
func (m Measure) MarshalText() ([]byte, error) { return []byte(m.String()), nil }

// UnmarshalText reads a measurement's name.
func (m *Measure) UnmarshalText(b []byte) error {
	v, err := ParseMeasure(string(b))
	*m = v
	return err
}

// Figures are a child's named results, e.g. "ms" or "events".
type Figures map[string]float64
