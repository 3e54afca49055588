package fuzz

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// cell counts the runs of one invariant × fault cell.
type cell struct{ runs, broken int }

// tally counts a fuzzing session's runs.
type tally struct {
	runs, failures, expected, unconfirmed, harness int
	// unsettled counts the runs whose end state was not judged
	// (Observation.Unsettled).
	unsettled int
	// known counts the runs that matched a known finding, by its name.
	known map[string]int
	// fired holds the faults that fired in some run.
	fired map[string]bool
	// cells holds invariant → fault (or noneColumn) → counts.
	cells map[string]map[string]*cell
}

func newTally() *tally {
	return &tally{fired: map[string]bool{}, cells: map[string]map[string]*cell{}, known: map[string]int{}}
}

// add counts out: each invariant judged on it once in every column of a fault that fired in it, or in
// the none column.
func (t *tally) add(out *Outcome) {
	t.runs++
	switch {
	case out.Failed():
		t.failures++
	case out.Expected:
		t.expected++
	case out.Known != "":
		t.known[out.Known]++
	}
	if out.Observation != nil && out.Observation.Unsettled {
		t.unsettled++
	}
	if out.Unconfirmed != "" {
		t.unconfirmed++
	}
	cols := map[string]bool{}
	if out.Observation != nil {
		for _, fr := range out.Observation.Fired {
			cols[fr.Fault] = true
			t.fired[fr.Fault] = true
		}
	}
	if len(cols) == 0 {
		cols[noneColumn] = true
	}
	for inv, err := range out.Results {
		if _, skipped := out.NotJudged[inv]; skipped {
			continue
		}
		row := t.cells[inv]
		if row == nil {
			row = map[string]*cell{}
			t.cells[inv] = row
		}
		for col := range cols {
			c := row[col]
			if c == nil {
				c = &cell{}
				row[col] = c
			}
			c.runs++
			if err != nil {
				c.broken++
			}
		}
	}
}

// columns returns the faults that fired, in registry order, then none.
func (t *tally) columns() []string {
	var cols []string
	for _, f := range faults.Registry {
		if t.fired[f.Name] {
			cols = append(cols, f.Name)
		}
	}
	return append(cols, noneColumn)
}

// write prints the invariants × faults table: each cell is runs/broken
// over the runs in which the column's fault fired.
func (t *tally) write(w io.Writer) {
	cols := t.columns()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "INVARIANT \\ FAULT\t%s\n", strings.Join(cols, "\t"))
	for _, inv := range oracle.Invariants {
		cells := make([]string, len(cols))
		for i, col := range cols {
			c := t.cells[inv.Name][col]
			if c == nil {
				c = &cell{}
			}
			cells[i] = fmt.Sprintf("%d/%d", c.runs, c.broken)
		}
		fmt.Fprintf(tw, "%s\t%s\n", inv.Name, strings.Join(cells, "\t"))
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "(cells: runs in which the fault fired and the invariant was judged / runs in which it broke)\n")
}
