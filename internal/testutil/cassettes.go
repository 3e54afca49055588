package testutil

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// Shipped returns the path of the shipped cassette called name (a file of
// the repository's cassettes/ folder), from whichever package's test asks.
func Shipped(name string) string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "cassettes", name)
}

// TargetCassette is the shipped cassette the target tests replay: a
// recorded WatchList of configmaps and pods.
const TargetCassette = "real-configmaps-pods-watchlist.yaml"

// MustHistory builds the history of the cassette at path, failing tb when
// it does not load.
func MustHistory(tb testing.TB, path string) *history.History {
	tb.Helper()
	files, err := cassette.LoadAll(path)
	if err != nil {
		tb.Fatalf("load %s: got error %v, want none", path, err)
	}
	h, err := history.Build(files...)
	if err != nil {
		tb.Fatalf("build %s: got error %v, want none", path, err)
	}
	return h
}

// MustPlan parses a plan's text form, failing tb when it does not parse.
func MustPlan(tb testing.TB, text string) faults.Plan {
	tb.Helper()
	p, err := faults.ParseText(text)
	if err != nil {
		tb.Fatalf("plan %q: got error %v, want none", text, err)
	}
	return p
}
