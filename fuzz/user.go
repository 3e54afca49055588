package fuzz

import "github.com/lwreplay/lwreplay/fuzz/oracle"

// invariant returns the built-in or user invariant called name.
func (c *Campaign) invariant(name string) (oracle.Invariant, bool) {
	if inv, ok := oracle.LookupInvariant(name); ok {
		return inv, true
	}
	for _, inv := range c.opts.Extra {
		if inv.Name == name {
			return inv, true
		}
	}
	return oracle.Invariant{}, false
}

// builtinNames returns the built-in invariants the campaign checks.
func (c *Campaign) builtinNames() []string {
	var out []string
	for _, inv := range oracle.Invariants {
		if len(c.opts.Invariants) == 0 {
			out = append(out, inv.Name)
			continue
		}
		for _, n := range c.opts.Invariants {
			if n == inv.Name {
				out = append(out, inv.Name)
			}
		}
	}
	if out == nil {
		out = []string{}
	}
	return out
}
