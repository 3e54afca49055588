package faults

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// codesPath is the golden list of every code ever given.
const codesPath = "testdata/choice-codes.txt"

// TestChoiceCodes holds the registry's codes equal to what it allows. Each
// fault has one code per combination of its parameters' Values, and the
// numbers run from 0 with no gap. A fault or a Value added without its
// code fails here.
func TestChoiceCodes(t *testing.T) {
	t.Parallel()
	choices() // derive the table once
	if choiceErr != nil {
		t.Fatalf("choice codes: got error %v, want none", choiceErr)
	}
	codes := map[string]int{}
	for i, d := range choices() {
		if j, dup := codes[d.String()]; dup {
			t.Errorf("choice code %d: got %s again (code %d), want each choice once", i, d, j)
		}
		codes[d.String()] = i
	}
	allowed := map[string]bool{}
	for _, d := range registryChoices() {
		allowed[d.String()] = true
		if _, ok := codes[d.String()]; !ok {
			t.Errorf("registry choice %s: got no code, want one in its fault's Codes (the next free number)", d)
		}
	}
	for s, i := range codes {
		if !allowed[s] {
			t.Errorf("choice code %d (%s): got a choice the registry does not allow, want none", i, s)
		}
	}
}

// TestCodeTable shows codeTable refuse codes that are not dense from 0 or
// do not fit their fault, and accept the registry's.
func TestCodeTable(t *testing.T) {
	t.Parallel()
	after := []Param{{Name: "after", Values: []int{0, 1}}}
	tests := []struct {
		name   string
		faults []Fault
		want   int // table length
		fails  bool
	}{
		{name: "code table - the registry - pass", faults: Registry, want: len(registryChoices())},
		{name: "code table - dense codes - pass", want: 3, faults: []Fault{
			{Name: "a", Codes: []Code{{N: 0}}}, {Name: "b", Params: after, Codes: []Code{{2, []int{0}}, {1, []int{1}}}}}},
		{name: "code table - a gap - fail", want: 1, fails: true, faults: []Fault{
			{Name: "a", Codes: []Code{{N: 0}}}, {Name: "b", Params: after, Codes: []Code{{2, []int{0}}, {3, []int{1}}}}}},
		{name: "code table - a number used twice - fail", want: 2, fails: true, faults: []Fault{
			{Name: "a", Codes: []Code{{N: 0}}}, {Name: "b", Params: after, Codes: []Code{{1, []int{0}}, {1, []int{1}}}}}},
		{name: "code table - values not one per parameter - fail", want: 1, fails: true, faults: []Fault{
			{Name: "a", Codes: []Code{{N: 0}}}, {Name: "b", Params: after, Codes: []Code{{1, nil}}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			table, err := codeTable(tc.faults)
			if len(table) != tc.want || (err != nil) != tc.fails {
				t.Errorf("got %d codes and error %v, want %d codes and an error: %v", len(table), err, tc.want, tc.fails)
			}
		})
	}
}

// appendOnly returns what is wrong with codes, the registry's code lines,
// against golden, the lines once given: a golden line changed or gone. It
// also returns the lines codes adds past golden's end.
func appendOnly(golden, codes []string) (added []string, err error) {
	var errs []error
	for i, g := range golden {
		switch {
		case i >= len(codes):
			errs = append(errs, fmt.Errorf("got no code %d, want %q kept for good", i, g))
		case codes[i] != g:
			errs = append(errs, fmt.Errorf("got code line %q, want %q (a code's meaning never changes)", codes[i], g))
		}
	}
	if len(codes) > len(golden) {
		added = codes[len(golden):]
	}
	return added, errors.Join(errs...)
}

// goldenCodes reads testdata/choice-codes.txt's lines, comments left out.
func goldenCodes(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(codesPath)
	if err != nil {
		t.Fatalf("read %s: got error %v, want none", codesPath, err)
	}
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
		if !strings.HasPrefix(l, "#") {
			lines = append(lines, l)
		}
	}
	return lines
}

// TestChoiceCodesAppendOnly holds every code ever given to its meaning:
// the registry's code lines must start with testdata/choice-codes.txt's.
// A new code is appended there (-update appends it).
func TestChoiceCodesAppendOnly(t *testing.T) {
	golden := []string{"0 a", "1 b:after=0", "2 b:after=1"}
	tests := []struct {
		name          string
		golden, codes []string
		fails         bool
		added         int
	}{
		{name: "append only - the same lines - pass", golden: golden, codes: golden},
		{name: "append only - a line appended - pass", golden: golden, codes: append(slices.Clone(golden), "3 c"), added: 1},
		{name: "append only - a line changed - fail", golden: golden, codes: []string{"0 a", "1 b:after=1", "2 b:after=0"}, fails: true},
		{name: "append only - a line removed - fail", golden: golden, codes: golden[:2], fails: true},
		{name: "append only - a line inserted - fail", golden: golden, codes: []string{"0 a", "1 c", "2 b:after=0", "3 b:after=1"}, fails: true, added: 1},
		{name: "append only - the registry against " + codesPath + " - pass", golden: goldenCodes(t), codes: codeLines(Registry)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			added, err := appendOnly(tc.golden, tc.codes)
			if (err != nil) != tc.fails {
				t.Errorf("got error %v, want an error: %v", err, tc.fails)
			}
			if !strings.Contains(tc.name, codesPath) {
				if len(added) != tc.added {
					t.Errorf("got %d lines added, want %d", len(added), tc.added)
				}
				return
			}
			if len(added) == 0 || tc.fails || err != nil {
				return
			}
			if !*update {
				t.Errorf("got new codes %q, want them appended to %s (go test ./faults -run TestChoiceCodesAppendOnly -update)", added, codesPath)
				return
			}
			f, err := os.OpenFile(codesPath, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			_, err = f.WriteString(strings.Join(added, "\n") + "\n")
			if err = errors.Join(err, f.Close()); err != nil {
				t.Errorf("append to %s: got error %v, want none", codesPath, err)
			}
		})
	}
}

func TestCanonicalBytes(t *testing.T) {
	t.Parallel()
	n := byte(len(choices()))
	tests := []struct {
		name string
		in   []byte
		want []byte
	}{
		{name: "canonical bytes - normal points become 0 - pass", in: []byte{0x01, 0x7f, 0x00}, want: []byte{0, 0, 0}},
		{name: "canonical bytes - a choice below the table's end is kept - pass", in: []byte{0x80, 0x80 + n - 1, 0xC0 + 3}, want: []byte{0x80, 0x80 + n - 1, 0xC0 + 3}},
		{name: "canonical bytes - a byte past the table wraps, held or not - pass", in: []byte{0x80 + n, 0xC0 + n + 2}, want: []byte{0x80, 0xC2}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := CanonicalBytes(tc.in)
			if !slices.Equal(got, tc.want) {
				t.Errorf("got %x, want %x", got, tc.want)
			}
			if a, b := Decode(tc.in).String(), Decode(got).String(); a != b {
				t.Errorf("Decode: got %q for the canonical bytes, want %q (the input's)", b, a)
			}
		})
	}
}

// registryChoices lists what the registry allows a fault byte to name.
// Each fault comes once per combination of its parameters' Values, in
// registry order, the last parameter varying fastest.
func registryChoices() []Decision {
	var out []Decision
	for _, f := range Registry {
		combos := []map[string]int{nil}
		for _, p := range f.Params {
			var next []map[string]int
			for _, c := range combos {
				for _, v := range p.Values {
					m := make(map[string]int, len(c)+1)
					for k, x := range c {
						m[k] = x
					}
					m[p.Name] = v
					next = append(next, m)
				}
			}
			combos = next
		}
		for _, c := range combos {
			out = append(out, Decision{Fault: f.Name, Params: c}.Canonical())
		}
	}
	return out
}
