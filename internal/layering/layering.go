// Package layering holds the direction of imports between lwreplay's
// packages: a table of layers by package-path prefix, and Check, which
// finds imports that go up or sideways. Go already refuses import cycles;
// this keeps each import pointing down.
//
// It is a package of its own under internal/: the rule is the
// repository's, not any layer's. It imports no lwreplay package; its test
// runs go list over the root module.
package layering

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Row is one row of the layer table: package-path prefixes, relative to
// the module path, at one rank. A package belongs to the row with its
// longest matching prefix, so a new subpackage inherits its parent's row.
type Row struct {
	// Rank orders the layers: a package may import only lower ranks, or
	// packages of its own row.
	Rank int
	// Layer names the rank in messages.
	Layer string
	// Prefix is the path prefix, as "replayer" or "internal/cli".
	Prefix string
}

// Rows is lwreplay's layer table, lowest first. Rows of one rank may not
// import each other: the serving packages are independent of each other.
var Rows = []Row{
	// formats and helpers that import no other layer
	{0, "base", "cassette"},
	{0, "base", "faults"},
	{0, "base", "actor"},
	{0, "base", "internal"}, // internal helpers, unless placed below
	// the recorded truth
	{1, "history", "history"},
	// the run record of a fuzz run: the harness writes it, the oracle and
	// timelines read it
	{2, "record", "fuzz/observe"},
	// what serves, records, builds and shows a history
	{3, "serving", "replayer"},
	{3, "serving", "recorder"},
	{3, "serving", "synth"},
	{3, "serving", "timeline"},
	// reproducers, and the tests' helpers over histories
	{4, "reproducing", "mutate"},
	{4, "reproducing", "internal/testutil"},
	// the fuzzing harness, driver, oracle and targets
	{5, "fuzzing", "fuzz"},
	// the command's flag layer
	{6, "cli", "internal/cli"},
	// programs: commands, examples, benchmarks, end-to-end tests, tools
	{7, "programs", "cmd"},
	{7, "programs", "examples"},
	{7, "programs", "bench"},
	{7, "programs", "e2e"},
	{7, "programs", "hack"},
}

// RowOf returns the row of package pkg (a path relative to the module):
// the row with the longest prefix that is pkg or a parent of it.
func RowOf(rows []Row, pkg string) (Row, bool) {
	var best Row
	found := false
	for _, r := range rows {
		if (pkg == r.Prefix || strings.HasPrefix(pkg, r.Prefix+"/")) && (!found || len(r.Prefix) > len(best.Prefix)) {
			best, found = r, true
		}
	}
	return best, found
}

// Check returns an error for each import in imports (a package's path to
// the lwreplay packages it imports, all relative to the module) that does
// not point to a lower layer or its own row, and for each package in no
// row. Errors come sorted.
func Check(rows []Row, imports map[string][]string) error {
	var errs []string
	for pkg, deps := range imports {
		from, ok := RowOf(rows, pkg)
		if !ok {
			errs = append(errs, fmt.Sprintf("got package %s in no layer, want a row in layering.Rows", pkg))
			continue
		}
		for _, dep := range deps {
			to, ok := RowOf(rows, dep)
			if !ok {
				errs = append(errs, fmt.Sprintf("got package %s in no layer, want a row in layering.Rows", dep))
				continue
			}
			if to.Prefix == from.Prefix || to.Rank < from.Rank {
				continue
			}
			errs = append(errs, fmt.Sprintf("got %s importing %s (layer %s → %s), want imports only to lower layers",
				pkg, dep, from.Layer+"/"+from.Prefix, to.Layer+"/"+to.Prefix))
		}
	}
	slices.Sort(errs)
	errs = slices.Compact(errs)
	out := make([]error, len(errs))
	for i, e := range errs {
		out[i] = errors.New(e)
	}
	return errors.Join(out...)
}
