package faults

import (
	"fmt"
	"strings"
)

// actsAt says in words where a fault of each point kind acts.
var actsAt = map[PointKind]string{
	ListPoint:    "LIST request",
	WatchPoint:   "WATCH request",
	FramePoint:   "watch frame",
	RequestPoint: "LIST or WATCH request",
	PlanPoint:    "whole replay",
	WritePoint:   "target's write",
}

// registryTable renders Registry as a Markdown table, one row per fault in
// registry order. Its columns are name, class, acts at, parameters, what
// it does, and kept up. Parameters shows the values Decode chooses and the
// bounds a plan may give. docs/faults.md carries the table between the
// faults markers.
// TestReferenceTable keeps the two equal; -update rewrites the doc.
func registryTable() string {
	var b strings.Builder
	b.WriteString("| name | class | acts at | parameters (fuzzed values; bounds) | what it does | kept up (from=N) |\n")
	b.WriteString("|---|---|---|---|---|---|\n")
	for _, f := range Registry {
		at, ok := actsAt[f.Point]
		if !ok {
			at = f.Point.String()
		}
		params := "—"
		if len(f.Params) > 0 {
			s := make([]string, len(f.Params))
			for i, p := range f.Params {
				s[i] = fmt.Sprintf("`%s` (%s; %s): %s", p.Name, ints(p.Values), p.Bounds(), p.Doc)
			}
			params = strings.Join(s, "; ")
		}
		persists := "—: " + f.PersistsWhy
		if f.Persists != Once {
			persists = f.Persists.String() + ": " + f.PersistsWhy
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s | %s |\n", f.Name, f.Class, at, cell(params), cell(f.Doc), cell(persists))
	}
	return b.String()
}

// cell escapes text for a Markdown table cell.
func cell(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "|", `\|`), "\n", " ")
}
