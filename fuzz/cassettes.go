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

// loadPlans reads and encodes the plan files glob names.
func loadPlans(glob string) ([][]byte, error) {
	if glob == "" {
		return nil, nil
	}
	paths, err := filepath.Glob(glob)
	if err != nil {
		return nil, fmt.Errorf("plans %q: %w", glob, err)
	}
	sort.Strings(paths)
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

// loadCassettes loads and builds every cassette matching glob, failing
// when none matches or one does not load or lacks res.
func loadCassettes(glob string, res history.Resource) ([]fuzzCassette, error) {
	paths, err := filepath.Glob(glob)
	if err != nil {
		return nil, fmt.Errorf("cassettes %q: %w", glob, err)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("cassettes %q: %w: no file matches", glob, ErrNoCassette)
	}
	if len(paths) > 256 {
		return nil, fmt.Errorf("cassettes %q: %w: %d files, at most 256 (one input byte picks one)", glob, ErrNoCassette, len(paths))
	}
	sort.Strings(paths)
	out := make([]fuzzCassette, 0, len(paths))
	for _, p := range paths {
		files, err := cassette.LoadAll(p)
		if err != nil {
			return nil, fmt.Errorf("cassette %s: %w", p, err)
		}
		h, err := history.Build(files...)
		if err != nil {
			return nil, fmt.Errorf("cassette %s: %w", p, err)
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
