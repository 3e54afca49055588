package fuzz

import (
	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/fuzz/internal/cassettes"
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

// loadOptions returns how o's cassette files load.
func loadOptions(o Options) []cassette.LoadOption {
	return []cassette.LoadOption{cassette.WithSalvage(o.Salvage), cassette.WithLazyBodies(true)}
}

// ErrNoCassette says a campaign has no usable cassette.
var ErrNoCassette = cassettes.ErrNoCassette
