package fuzz

import (
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// Glob returns the files patterns name (filepath.Glob), each pattern's
// sorted, in the order of the patterns: a campaign's Options.Cassettes or
// Plans from test files ("../cassettes/real-*.yaml"). A pattern that is
// malformed or matches nothing is returned as it is, so that the campaign
// loading it fails with an error naming it.
func Glob(patterns ...string) []string {
	var out []string
	for _, p := range patterns {
		names, err := filepath.Glob(p)
		if err != nil || len(names) == 0 {
			out = append(out, p)
			continue
		}
		sort.Strings(names)
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

// loadHistory loads the cassette at path and builds its history; the
// error names the cassette.
func loadHistory(path string) ([]*cassette.File, *history.History, error) {
	files, err := cassette.LoadAll(path)
	if err != nil {
		return nil, nil, fmt.Errorf("cassette %s: %w", path, err)
	}
	h, err := history.Build(files...)
	if err != nil {
		return nil, nil, fmt.Errorf("cassette %s: %w", path, err)
	}
	return files, h, nil
}

// loadCassettes loads and builds the cassette at each path, in order,
// failing when there is none or more than an input byte can pick, or one
// does not load or lacks res.
func loadCassettes(paths []string, res history.Resource) ([]fuzzCassette, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no cassette named", ErrNoCassette)
	}
	if len(paths) > 256 {
		return nil, fmt.Errorf("%w: %d cassettes, at most 256 (one input byte picks one)", ErrNoCassette, len(paths))
	}
	out := make([]fuzzCassette, 0, len(paths))
	for _, p := range paths {
		files, h, err := loadHistory(p)
		if err != nil {
			return nil, err
		}
		if _, ok := h.Log(res); !ok {
			return nil, fmt.Errorf("cassette %s: %w: no %s recorded", p, ErrNoCassette, res.Resource)
		}
		fc := fuzzCassette{path: p, h: h, decoded: newDecoded()}
		if cassette.IsVerbatim(files...) {
			fc.reproducer, fc.watchList = files, recordedWatchList(files)
		}
		out = append(out, fc)
	}
	return out, nil
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
