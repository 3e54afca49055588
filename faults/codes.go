package faults

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
)

var (
	choiceOnce  sync.Once
	choiceTable []Decision
	choiceErr   error
)

// choices returns the decisions the fault bytes name, by code number
// (Fault.Codes), each At 0 in canonical form. Codes may be not dense
// from 0 or may not fit their faults (TestChoiceCodes keeps them right).
// Then choices yields the codes up to the first gap, and choiceErr says why.
func choices() []Decision {
	choiceOnce.Do(func() {
		choiceTable, choiceErr = codeTable(Registry)
	})
	return slices.Clip(choiceTable)
}

// codeTable returns the decisions of faults' codes, indexed by code
// number, and what is wrong with them. Wrong are a number used twice, a
// gap, and a code whose Values do not match its fault's Params. The table
// stops at the first number no code has.
func codeTable(faults []Fault) ([]Decision, error) {
	byN := map[int]Decision{}
	var errs []error
	for _, f := range faults {
		for _, c := range f.Codes {
			if len(c.Values) != len(f.Params) {
				errs = append(errs, fmt.Errorf("%s code %d: got %d values, want one per parameter (%d)", f.Name, c.N, len(c.Values), len(f.Params)))
				continue
			}
			if _, dup := byN[c.N]; dup {
				errs = append(errs, fmt.Errorf("%s code %d: got the number used twice, want each once", f.Name, c.N))
				continue
			}
			d := Decision{Fault: f.Name}
			if len(c.Values) > 0 {
				d.Params = make(map[string]int, len(c.Values))
				for i, p := range f.Params {
					d.Params[p.Name] = c.Values[i]
				}
			}
			byN[c.N] = d.Canonical()
		}
	}
	table := make([]Decision, 0, len(byN))
	for n := 0; ; n++ {
		d, ok := byN[n]
		if !ok {
			break
		}
		table = append(table, d)
	}
	if len(table) != len(byN) {
		errs = append(errs, fmt.Errorf("codes: got %d numbers with a gap at %d, want them dense from 0", len(byN), len(table)))
	}
	return table, errors.Join(errs...)
}

// codeLines renders the faults' codes as testdata/choice-codes.txt holds
// them, one a line in number order: "2 close-watch:after=0", the
// parameters in the fault's order.
func codeLines(faults []Fault) []string {
	var lines []string
	for _, f := range faults {
		for _, c := range f.Codes {
			var b strings.Builder
			b.WriteString(f.Name)
			sep := ":"
			for i, v := range c.Values {
				if i >= len(f.Params) {
					break
				}
				b.WriteString(sep + f.Params[i].Name + "=" + strconv.Itoa(v))
				sep = ","
			}
			for len(lines) <= c.N {
				lines = append(lines, "")
			}
			lines[c.N] = strconv.Itoa(c.N) + " " + b.String()
		}
	}
	return lines
}

// CanonicalBytes returns plan bytes b with each byte in its shortest form.
// A normal point is 0; choice k is 0x80+k or, held, 0xC0+k, with k below
// the number of choices. Decode reads the result as it reads b; unlike b's
// bytes past the table's end, the result's keep their meaning when the
// table grows.
func CanonicalBytes(b []byte) []byte {
	n := len(choices())
	out := make([]byte, len(b))
	for i, c := range b {
		switch {
		case c < FirstFaultByte || n == 0:
			out[i] = 0
		case c < FirstPersistentByte:
			out[i] = FirstFaultByte + byte(int(c-FirstFaultByte)%n)
		default:
			out[i] = FirstPersistentByte + byte(int(c-FirstPersistentByte)%n)
		}
	}
	return out
}
