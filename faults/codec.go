package faults

import (
	"fmt"
	"slices"
)

// FirstFaultByte is the smallest byte Decode reads as a fault; every byte
// below it (half of them) is a normal point.
const FirstFaultByte = 0x80

// FirstPersistentByte is the smallest byte Decode reads as a persistent
// decision. Bytes from FirstFaultByte up to it place a decision at one
// point. Bytes from it on name the same choices, held from that point on.
const FirstPersistentByte = 0xC0

// choiceBytes is how many choices each byte range can name.
const choiceBytes = FirstPersistentByte - FirstFaultByte

// maxEncodedPoint bounds At in Encode, so that a stray large At cannot ask
// for a huge byte string.
const maxEncodedPoint = 1 << 20

// Decode turns fuzz bytes into a plan; every byte string is a valid plan.
// Byte i alone is the decision for decision point i (At = i). So changing
// byte i changes only the decision at point i. Write points are numbered
// on their own (see Point.Index): for a fault at the target's writes,
// point i is its (i+1)-th write.
//
//	byte b                          decision at point i
//	b < 0x80 (FirstFaultByte)       none: the point behaves normally
//	0x80 ≤ b < 0xC0                 choice (b − 0x80) mod N, At = i
//	b ≥ 0xC0 (FirstPersistentByte)  choice (b − 0xC0) mod N, At = i,
//	                                Persistent: it holds from point i on
//	                                (one point only for a fault whose
//	                                Persists is Once)
//
// The N choices are the (fault, parameter values) pairs the registry
// allows. Each has a code of its own for good (Fault.Codes; codes are only
// added). Byte 0x80+k is the choice of code k. A byte past the table
// (k ≥ N) wraps to k mod N. Only such bytes change their meaning when the
// table grows; CanonicalBytes rewrites them below N. Points past the
// end of b are normal. A decision whose fault does not fit the kind of
// point it lands on does nothing. Decisions come out sorted by At, in
// canonical form (see Decision.Canonical).
func Decode(b []byte) Plan {
	var p Plan
	var table []Decision
	for i, c := range b {
		if c < FirstFaultByte {
			continue
		}
		if table == nil {
			table = choices()
			if len(table) == 0 {
				return Plan{}
			}
		}
		k, persistent := int(c-FirstFaultByte), false
		if c >= FirstPersistentByte {
			k, persistent = int(c-FirstPersistentByte), true
		}
		d := table[k%len(table)].Canonical() // a fresh Params map
		d.At = i
		if f, _ := Lookup(d.Fault); persistent && f.Persists != Once {
			d.Persistent = true
		}
		p.Decisions = append(p.Decisions, d)
	}
	return p
}

// Encode is Decode's inverse: it returns the shortest bytes whose Decode
// equals p. A normal point is byte 0, choice k is byte 0x80+k, or 0xC0+k
// when the decision is Persistent. Encode refuses, with ErrNotEncodable, a
// plan that Decode cannot produce. That is a decision with At below 0 or
// above 2^20, or decisions not in increasing At order (two at one point
// included). It is also an unknown fault, a where-parameter or other
// unknown parameter, or a value not among its parameter's Values.
func Encode(p Plan) ([]byte, error) {
	if len(p.Decisions) == 0 {
		return []byte{}, nil
	}
	table := choices()
	last := p.Decisions[len(p.Decisions)-1].At
	prev := -1
	for i, d := range p.Decisions {
		switch {
		case d.At < 0:
			return nil, fmt.Errorf("%w: decision %d (%s): at=%d: only decisions at one point have a byte form", ErrNotEncodable, i, d, d.At)
		case d.At > maxEncodedPoint:
			return nil, fmt.Errorf("%w: decision %d (%s): at=%d is past point %d", ErrNotEncodable, i, d, d.At, maxEncodedPoint)
		case d.At == prev:
			return nil, fmt.Errorf("%w: decision %d (%s): a second decision at point %d", ErrNotEncodable, i, d, d.At)
		case d.At < prev:
			return nil, fmt.Errorf("%w: decision %d (%s): at=%d comes after at=%d; decisions must be in At order", ErrNotEncodable, i, d, d.At, prev)
		}
		prev = d.At
	}
	b := make([]byte, last+1)
	for i, d := range p.Decisions {
		k, err := choiceOf(table, d)
		if err != nil {
			return nil, fmt.Errorf("%w: decision %d (%s): %v", ErrNotEncodable, i, d, err)
		}
		first := FirstFaultByte
		if d.Persistent {
			first = FirstPersistentByte
		}
		b[d.At] = byte(first + k)
	}
	return b, nil
}

// choiceOf returns the index in table of the choice d decodes from.
func choiceOf(table []Decision, d Decision) (int, error) {
	f, ok := Lookup(d.Fault)
	if !ok {
		return 0, fmt.Errorf("unknown fault %q", d.Fault)
	}
	for k := range d.Params {
		if _, ok := f.param(k); !ok {
			return 0, fmt.Errorf("parameter %q has no byte form", k)
		}
	}
	if d.Persistent && f.Persists == Once {
		return 0, fmt.Errorf("%s has no persistent form", d.Fault)
	}
	probe := Decision{Fault: d.Fault, Params: d.Params}
	for k, c := range table {
		if c.Equal(probe) {
			if k >= choiceBytes {
				return 0, fmt.Errorf("choice %d is past the last byte", k)
			}
			return k, nil
		}
	}
	for _, p := range f.Params {
		if v := d.Param(p.Name); !slices.Contains(p.Values, v) {
			return 0, fmt.Errorf("%s=%d is not among the values Decode chooses (%s)", p.Name, v, ints(p.Values))
		}
	}
	return 0, fmt.Errorf("no byte decodes to it")
}

// ints renders values as "0, 1, 2".
func ints(vs []int) string {
	s := ""
	for i, v := range vs {
		if i > 0 {
			s += ", "
		}
		s += fmt.Sprint(v)
	}
	return s
}
