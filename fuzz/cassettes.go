package fuzz

import (
	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/fuzz/internal/cassettes"
)

// Glob returns the files patterns name, in the order of the patterns.
// It expands paths as every lwreplay verb does (cassette.Expand): a file,
// a directory's *.yaml files, a glob pattern's matches, each sorted. Use it
// for a campaign's Options.Cassettes or Plans from test files
// ("../cassettes/real-*.yaml"). A pattern that is malformed or names
// nothing is returned as it is. So the campaign loading it fails with an
// error naming it.
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
