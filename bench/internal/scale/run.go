package scale

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"
)

// Cassette is a cassette to measure and the name its rows carry, e.g. "10k".
type Cassette struct {
	Name string `json:"name"`
	Path string `json:"path"`
}

// Options say how Run runs its children.
type Options struct {
	// Self is the command that runs a process calling ChildMain first.
	Self []string
	// Lwreplay is the lwreplay binary the serve measurements start.
	Lwreplay string
	// RecorderEvents bounds the recorder's watch (0: 100,000).
	RecorderEvents int
	// Rounds is Job.Rounds (0: 3).
	Rounds int
	// Log, if set, gets a line as each measurement starts and ends, and
	// the children's stderr.
	Log io.Writer
	// Measures, if set, are the measurements to make (in Measures'
	// order): the table has the rows they make whole.
	Measures []Measure
}

// Result is what Run measured of one cassette: each measurement's child.
type Result struct {
	Cassette Cassette         `json:"cassette"`
	Children map[string]Child `json:"children"`
}

// child returns the child that made measurement m.
func (r Result) child(m Measure) Child { return r.Children[m.String()] }

// Measures lists every measurement, in the order Run makes them.
var Measures = []Measure{Idle, Load, State, ServeList, ServeWatchList, DecodeList, Replay, Recorder}

// Run makes every measurement of each cassette, one child process each,
// one after the other.
func Run(ctx context.Context, cassettes []Cassette, o Options) ([]Result, error) {
	log := o.Log
	if log == nil {
		log = io.Discard
	}
	var out []Result
	for _, c := range cassettes {
		r := Result{Cassette: c, Children: map[string]Child{}}
		for _, m := range Measures {
			if len(o.Measures) > 0 && !slices.Contains(o.Measures, m) {
				continue
			}
			job := Job{Measure: m, Cassette: c.Path, Lwreplay: o.Lwreplay, Events: o.RecorderEvents, Rounds: o.Rounds}
			fmt.Fprintf(log, "%s %s: %s ...\n", time.Now().UTC().Format(time.TimeOnly), c.Name, m)
			start := time.Now()
			ch, err := runChild(ctx, o.Self, job, log)
			if err != nil {
				return out, err
			}
			fmt.Fprintf(log, "%s %s: %s: %v in %v, peak RSS %d MiB\n", time.Now().UTC().Format(time.TimeOnly), c.Name, m,
				ch.Figures, time.Since(start).Round(time.Millisecond), ch.MaxRSS>>20)
			r.Children[m.String()] = ch
		}
		if err := r.check(); err != nil {
			return append(out, r), err
		}
		out = append(out, r)
	}
	return out, nil
}

// has reports whether r holds the children of every measurement ms.
func (r Result) has(ms ...Measure) bool {
	for _, m := range ms {
		if _, ok := r.Children[m.String()]; !ok {
			return false
		}
	}
	return true
}

// check says whether the children measured the same objects and events
// (of those Run made).
func (r Result) check() error {
	if !r.has(Load) {
		return nil
	}
	load := r.child(Load).Figures
	if got, want := r.child(DecodeList).Figures["objects"], load["objects"]; r.has(DecodeList) && got != want {
		return fmt.Errorf("%w: %s: the LIST decoded holds %v objects, want the %v of the initial state", ErrMeasure, r.Cassette.Name, got, want)
	}
	if got, want := r.child(Replay).Figures["events"], load["events"]; r.has(Replay) && got != want {
		return fmt.Errorf("%w: %s: replay handled %v events, want the %v of the history", ErrMeasure, r.Cassette.Name, got, want)
	}
	for _, m := range []Measure{ServeList, ServeWatchList} {
		if got, want := r.child(m).Figures["objects"], load["objects"]; r.has(m) && got != want {
			return fmt.Errorf("%w: %s: %s: the informers' initial lists hold %v objects, want the %v of the initial state", ErrMeasure, r.Cassette.Name, m, got, want)
		}
	}
	return nil
}
