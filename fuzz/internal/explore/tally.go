// Package explore counts an exploration's runs: the invariants × faults
// table of lwreplay fuzz, and its totals.
package explore

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// NoneColumn is the table column of runs in which no fault fired.
const NoneColumn = "none"

// Cell counts the runs of one invariant × fault cell.
type Cell struct {
	// Runs counts the runs in which the fault fired and the invariant was
	// judged; Broken those in which it broke.
	Runs, Broken int
}

// Run is what the tally counts of one run.
type Run struct {
	// Failed, Expected and Known say how the run's verdict stands: a
	// failure, a breaking fault's doing, or a known finding (its name).
	Failed, Expected bool
	Known            string
	// Unsettled says its end state was not judged; Unconfirmed that its
	// typed-level violation did not repeat at the wire level.
	Unsettled, Unconfirmed bool
	// Fired are the faults that fired, in order, repeats and all.
	Fired []faults.Firing
	// Results and NotJudged are the judge's verdicts, by invariant.
	Results   map[string]error
	NotJudged map[string]string
}

// Tally counts a fuzzing session's runs.
type Tally struct {
	// Runs, Failures, Expected and Unconfirmed count the runs, the failed
	// ones, the breaking faults' doing and the unconfirmed ones.
	Runs, Failures, Expected, Unconfirmed int
	// Harness counts the runs the harness itself failed.
	Harness int
	// Unsettled counts the runs whose end state was not judged.
	Unsettled int
	// Known counts the runs that matched a known finding, by its name.
	Known map[string]int
	// Fired holds the faults that fired in some run.
	Fired map[string]bool
	// cells holds invariant → fault (or NoneColumn) → counts.
	cells map[string]map[string]*Cell
}

// NewTally returns an empty tally.
func NewTally() *Tally {
	return &Tally{Fired: map[string]bool{}, cells: map[string]map[string]*Cell{}, Known: map[string]int{}}
}

// Add counts r: each invariant judged on it once in every column of a
// fault that fired in it, or in the none column.
func (t *Tally) Add(r Run) {
	t.Runs++
	switch {
	case r.Failed:
		t.Failures++
	case r.Expected:
		t.Expected++
	case r.Known != "":
		t.Known[r.Known]++
	}
	if r.Unsettled {
		t.Unsettled++
	}
	if r.Unconfirmed {
		t.Unconfirmed++
	}
	cols := map[string]bool{}
	for _, fr := range r.Fired {
		cols[fr.Fault] = true
		t.Fired[fr.Fault] = true
	}
	if len(cols) == 0 {
		cols[NoneColumn] = true
	}
	for inv, err := range r.Results {
		if _, skipped := r.NotJudged[inv]; skipped {
			continue
		}
		row := t.cells[inv]
		if row == nil {
			row = map[string]*Cell{}
			t.cells[inv] = row
		}
		for col := range cols {
			c := row[col]
			if c == nil {
				c = &Cell{}
				row[col] = c
			}
			c.Runs++
			if err != nil {
				c.Broken++
			}
		}
	}
}

// Cell returns the counts of invariant inv × column col.
func (t *Tally) Cell(inv, col string) Cell {
	if c := t.cells[inv][col]; c != nil {
		return *c
	}
	return Cell{}
}

// Columns returns the faults that fired, in registry order, then none.
func (t *Tally) Columns() []string {
	var cols []string
	for _, f := range faults.Registry {
		if t.Fired[f.Name] {
			cols = append(cols, f.Name)
		}
	}
	return append(cols, NoneColumn)
}

// Write prints the invariants × faults table: each cell is runs/broken
// over the runs in which the column's fault fired.
func (t *Tally) Write(w io.Writer) {
	cols := t.Columns()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "INVARIANT \\ FAULT\t%s\n", strings.Join(cols, "\t"))
	for _, inv := range oracle.Invariants {
		cells := make([]string, len(cols))
		for i, col := range cols {
			c := t.Cell(inv.Name, col)
			cells[i] = fmt.Sprintf("%d/%d", c.Runs, c.Broken)
		}
		fmt.Fprintf(tw, "%s\t%s\n", inv.Name, strings.Join(cells, "\t"))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "(cells: runs in which the fault fired and the invariant was judged / runs in which it broke)\n")
}

// KnownText says how many known findings the runs matched: "1 known
// client-go bug (kubernetes#140890, 612 runs)", "no known bug".
func KnownText(known map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(known)) {
		parts = append(parts, fmt.Sprintf("%s, %d runs", k, known[k]))
	}
	switch len(parts) {
	case 0:
		return "no known bug"
	case 1:
		return fmt.Sprintf("1 known bug (%s)", parts[0])
	}
	return fmt.Sprintf("%d known bugs (%s)", len(parts), strings.Join(parts, "; "))
}
