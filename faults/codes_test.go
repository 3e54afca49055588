package faults

import (
	"slices"
	"testing"
)

// TestChoiceCodes holds the code table equal, as a set, to what the
// registry allows: a fault or a Value added to the registry without its
// code appended to choiceCodes (or a code left for something the registry
// no longer has) fails here, with the entry to append.
func TestChoiceCodes(t *testing.T) {
	t.Parallel()
	choices() // parse the table once
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
			t.Errorf("registry choice %s: got no code, want it appended to choiceCodes (never inserted)", d)
		}
	}
	for s, i := range codes {
		if !allowed[s] {
			t.Errorf("choice code %d (%s): got a choice the registry does not allow, want none", i, s)
		}
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

// registryChoices lists what the registry allows a fault byte to name: each
// fault once per combination of its parameters' Values, in registry order,
// the last parameter varying fastest.
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
