package fuzz

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

// Glob returns the files patterns name, as every lwreplay verb expands
// paths (cassette.Expand: a file, a directory's *.yaml files, a glob
// pattern's matches, each sorted), in the order of the patterns: a
// campaign's Options.Cassettes or Plans from test files
// ("../cassettes/real-*.yaml"). A pattern that is malformed or names
// nothing is returned as it is, so that the campaign loading it fails with
// an error naming it.
func Glob(patterns ...string) []string {
	var out []string
	for _, p := range patterns {
		names, err := cassette.Expand(p)
		if err != nil {
			out = append(out, p)
			continue
		}
		out = append(out, names...)
	}
	return out
}

// loadPlans reads and encodes the plan files at paths.
func loadPlans(paths []string) ([][]byte, error) {
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

// recording is one recording loaded and built: one cassette of a
// campaign.
type recording struct {
	rec cassette.Recording
	h   *history.History
}

// loadRecordings loads the cassette files and directories paths name and
// groups them into recordings (cassette.Group: a file, or the parts a
// recorder rotated one recording into); the error names the file.
func loadRecordings(paths []string, opts ...cassette.LoadOption) ([]cassette.Recording, error) {
	recs, err := cassette.LoadRecordings(paths, opts...)
	if err != nil {
		return nil, fmt.Errorf("cassette: %w", err)
	}
	return recs, nil
}

// build builds each recording's history; the error names the recording.
func build(recs []cassette.Recording) ([]recording, error) {
	out := make([]recording, 0, len(recs))
	for _, r := range recs {
		h, err := history.Build(r.Files...)
		if err != nil {
			return nil, fmt.Errorf("cassette %s: %w", r.Name(), err)
		}
		out = append(out, recording{rec: r, h: h})
	}
	return out, nil
}

// loadOptions returns how o's cassette files load.
func loadOptions(o Options) []cassette.LoadOption {
	return []cassette.LoadOption{cassette.WithSalvage(o.Salvage), cassette.WithLazyBodies(true)}
}

// loadCassettes loads the recordings paths hold, in order, failing when
// there is none or more than an input byte can pick, or one does not load
// or lacks res.
func loadCassettes(paths []string, res history.Resource, opts ...cassette.LoadOption) ([]fuzzCassette, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no cassette named", ErrNoCassette)
	}
	loaded, err := loadRecordings(paths, opts...)
	if err != nil {
		return nil, err
	}
	if err := pickable(len(loaded)); err != nil { // before building them all
		return nil, err
	}
	recs, err := build(loaded)
	if err != nil {
		return nil, err
	}
	return cassettesOf(recs, res, true)
}

// cassettesOf returns the campaign cassettes of recs over res: each of
// them, failing on one that lacks res when all must have it; else those
// that recorded res, failing when none or more than an input byte can pick
// did.
func cassettesOf(recs []recording, res history.Resource, all bool) ([]fuzzCassette, error) {
	out := make([]fuzzCassette, 0, len(recs))
	for _, r := range recs {
		name := r.rec.Name()
		if _, ok := r.h.Log(res); !ok {
			if all {
				return nil, fmt.Errorf("cassette %s: %w: no %s recorded", name, ErrNoCassette, res.Resource)
			}
			continue
		}
		fc := fuzzCassette{path: name, h: r.h, Cache: level.NewCache()}
		if files := r.rec.Files; cassette.IsVerbatim(files...) {
			fc.reproducer, fc.watchList = files, recordedWatchList(files)
		}
		out = append(out, fc)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%w: no recording recorded %s", ErrNoCassette, res.Resource)
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
