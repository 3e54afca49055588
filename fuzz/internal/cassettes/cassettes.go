// Package cassettes loads a campaign's cassettes and plans: each
// recording built into its history once, checked for the campaign's
// resource.
package cassettes

import (
	"errors"
	"fmt"
	"net/url"
	"os"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/level"
	"github.com/lwreplay/lwreplay/history"
)

// Cassette is one cassette loaded for a fuzz run.
type Cassette struct {
	// Path names the recording; History is its history.
	Path    string
	History *history.History
	// Cache holds the level's decoded objects of History.
	Cache *level.Cache
	// Reproducer holds the files of a reproducer (replayed verbatim, with
	// no plan, on the client path it was recorded on); nil otherwise.
	Reproducer []*cassette.File
	// WatchList is a reproducer's client path.
	WatchList bool
}

// LoadPlans reads and encodes the plan files at paths.
func LoadPlans(paths []string) ([][]byte, error) {
	var out [][]byte
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", p, err)
		}
		plan, err := faults.ParsePlan(data)
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", p, err)
		}
		enc, err := faults.Encode(plan)
		if err != nil {
			return nil, fmt.Errorf("plan %s: %w", p, err)
		}
		out = append(out, enc)
	}
	return out, nil
}

// Recording is one recording loaded and built: one cassette of a
// campaign.
type Recording struct {
	// Rec is the recording; History its history.
	Rec     cassette.Recording
	History *history.History
}

// LoadRecordings loads the cassette files and directories paths name. It
// groups them into recordings (cassette.Group: a file, or the parts a
// recorder rotated one recording into). The error names the file.
func LoadRecordings(paths []string, opts ...cassette.LoadOption) ([]cassette.Recording, error) {
	recs, err := cassette.LoadRecordings(paths, opts...)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	return recs, nil
}

// Build builds each recording's history; the error names the recording.
func Build(recs []cassette.Recording) ([]Recording, error) {
	out := make([]Recording, 0, len(recs))
	for _, r := range recs {
		h, err := history.Build(r.Files...)
		if err != nil {
			return nil, fmt.Errorf("cassette %s: %w", r.Name(), err)
		}
		out = append(out, Recording{Rec: r, History: h})
	}
	return out, nil
}

// Load loads the recordings paths hold, in order. It fails when there is
// none, or more than an input byte can pick, or one does not load or lacks
// res.
func Load(paths []string, res history.Resource, opts ...cassette.LoadOption) ([]Cassette, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no cassette named", ErrNoCassette)
	}
	loaded, err := LoadRecordings(paths, opts...)
	if err != nil {
		return nil, err
	}
	if err := pickable(len(loaded)); err != nil { // before building them all
		return nil, err
	}
	recs, err := Build(loaded)
	if err != nil {
		return nil, err
	}
	return Of(recs, res, true)
}

// Of returns the campaign cassettes of recs over res. When all must have
// res, that is each of them, failing on one that lacks res. Else it is
// those that recorded res, failing when none did or more than an input
// byte can pick.
func Of(recs []Recording, res history.Resource, all bool) ([]Cassette, error) {
	out := make([]Cassette, 0, len(recs))
	for _, r := range recs {
		name := r.Rec.Name()
		if _, ok := r.History.Log(res); !ok {
			if all {
				return nil, fmt.Errorf("cassette %s: %w: no %s recorded", name, ErrNoCassette, res.Resource)
			}
			continue
		}
		fc := Cassette{Path: name, History: r.History, Cache: level.NewCache()}
		if files := r.Rec.Files; cassette.IsVerbatim(files...) {
			fc.Reproducer, fc.WatchList = files, recordedWatchList(files)
		}
		out = append(out, fc)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no Recording recorded %s", ErrNoCassette, res.Resource)
	}
	if err := pickable(len(out)); err != nil {
		return nil, err
	}
	return out, nil
}

// pickable returns an error when n cassettes are more than an input's
// cassette byte can pick.
func pickable(n int) error {
	if n > 256 {
		return fmt.Errorf("%w: %d cassettes, at most 256 (one input byte picks one)", ErrNoCassette, n)
	}
	return nil
}

// recordedWatchList reports whether the traffic in files was a WatchList
// client's: some request asked for initial events.
func recordedWatchList(files []*cassette.File) bool {
	for _, f := range files {
		for _, i := range f.Interactions {
			if u, err := url.Parse(i.URL); err == nil && u.Query().Get("sendInitialEvents") == "true" {
				return true
			}
		}
	}
	return false
}

// ErrNoCassette says a campaign has no usable cassette.
var ErrNoCassette = errors.New("no usable cassette")
