package faults

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
)

// ParseFault parses a decision's text form: "name", or "name:k=v,k=v" as in
// "close-watch:after=5", "expire-continue:page=2",
// "http-error:code=503,list=1" or "delay:ms=2500,at=14". The keys are:
//   - the fault's parameters;
//   - "at": sets At, the decision point's number. Without it At is -1:
//     every point the where-parameters select;
//   - "from": the same, and Persistent: the decision holds from that point
//     on. Only for a fault with a persistent form: "close-watch:after=3,from=1";
//   - the where-parameters that can select the fault's points ("watch",
//     "list", "page", "frame"). Their ordinals count from 1. None may go
//     with "at" or "from".
//
// Values are non-negative decimal integers. A fault parameter may take any
// of them within its bounds (Param.Min, Param.Max), not only its Values.
// The result is canonical (see Decision.Canonical).
func ParseFault(s string) (Decision, error) {
	s = strings.TrimSpace(s)
	name, rest, hasParams := strings.Cut(s, ":")
	if name == "" {
		return Decision{}, fmt.Errorf("%w: %q: no fault name", ErrSyntax, s)
	}
	f, ok := Lookup(name)
	if !ok {
		return Decision{}, fmt.Errorf("%w: %q (known: %s)", ErrUnknownFault, name, strings.Join(Names(), ", "))
	}
	d := Decision{Fault: name, At: -1}
	if hasParams {
		if rest == "" {
			return Decision{}, fmt.Errorf("%w: %q: empty parameter list after ':'", ErrSyntax, s)
		}
		for _, kv := range strings.Split(rest, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || k == "" {
				return Decision{}, fmt.Errorf("%w: %q: %q is not key=value", ErrSyntax, s, kv)
			}
			if !known(f, k) {
				return Decision{}, fmt.Errorf("%w: %s: unknown parameter %q (valid: %s)", ErrParam, name, k, strings.Join(validKeys(f), ", "))
			}
			n, err := number(v)
			if err != nil {
				return Decision{}, fmt.Errorf("%w: %s: %s=%q: %v", ErrParam, name, k, v, err)
			}
			if k == ParamAt || k == ParamFrom {
				if d.At >= 0 {
					return Decision{}, fmt.Errorf("%w: %s: %s given twice (at= and from= name one point)", ErrParam, name, k)
				}
				d.At, d.Persistent = n, k == ParamFrom
				continue
			}
			if _, dup := d.Params[k]; dup {
				return Decision{}, fmt.Errorf("%w: %s: %s given twice", ErrParam, name, k)
			}
			if d.Params == nil {
				d.Params = map[string]int{}
			}
			d.Params[k] = n
		}
	}
	if err := d.validate(); err != nil {
		return Decision{}, err
	}
	return d.Canonical(), nil
}

// ParseText parses a plan's text form, as Plan.String writes it:
// ParseFault strings separated by white space.
func ParseText(s string) (Plan, error) {
	var p Plan
	for i, f := range strings.Fields(s) {
		d, err := ParseFault(f)
		if err != nil {
			return Plan{}, fmt.Errorf("fault %d: %w", i, err)
		}
		p.Decisions = append(p.Decisions, d)
	}
	return p, nil
}

// number parses a non-negative decimal integer.
func number(v string) (int, error) {
	if v == "" || strings.TrimLeft(v, "0123456789") != "" {
		return 0, fmt.Errorf("not a non-negative integer")
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, fmt.Errorf("out of range")
	}
	return n, nil
}

// Names returns the registered fault names in registry order.
func Names() []string {
	names := make([]string, len(Registry))
	for i, f := range Registry {
		names[i] = f.Name
	}
	return names
}

// known reports whether k is a valid text key for f.
func known(f Fault, k string) bool {
	return slices.Contains(validKeys(f), k)
}

// validKeys lists the text keys f accepts: its parameters, the
// where-parameters for its point kind, then "at".
func validKeys(f Fault) []string {
	var keys []string
	for _, p := range f.Params {
		keys = append(keys, p.Name)
	}
	keys = append(keys, whereFor(f.Point)...)
	keys = append(keys, ParamAt)
	if f.Persists != Once {
		keys = append(keys, ParamFrom)
	}
	return keys
}

// validate checks d against the registry. The fault must be known and At
// -1 or more. Parameters must be known to the fault, with non-negative
// values within their bounds (Param.Min, Param.Max). Where-parameters go
// only with At -1, must be positive, and may not select LIST and watch
// points at once.
func (d Decision) validate() error {
	f, ok := Lookup(d.Fault)
	if !ok {
		return fmt.Errorf("%w: %q (known: %s)", ErrUnknownFault, d.Fault, strings.Join(Names(), ", "))
	}
	if d.At < -1 {
		return fmt.Errorf("%w: %s: at=%d: a point number is 0 or more (-1: every point)", ErrParam, d.Fault, d.At)
	}
	var where []string
	for _, k := range slices.Sorted(maps.Keys(d.Params)) {
		v := d.Params[k]
		if k == ParamAt || k == ParamFrom || !known(f, k) {
			return fmt.Errorf("%w: %s: unknown parameter %q (valid: %s)", ErrParam, d.Fault, k, strings.Join(validKeys(f), ", "))
		}
		if v < 0 {
			return fmt.Errorf("%w: %s: %s=%d: not a non-negative integer", ErrParam, d.Fault, k, v)
		}
		if p, ok := f.param(k); ok && !p.InRange(v) {
			return fmt.Errorf("%w: %s: %s=%d: want %s (%s)", ErrParam, d.Fault, k, v, p.Bounds(), p.Range)
		}
		if isWhere(k) {
			if v == 0 {
				return fmt.Errorf("%w: %s: %s=0: ordinals start at 1", ErrParam, d.Fault, k)
			}
			where = append(where, k)
		}
	}
	if len(where) > 0 && d.At >= 0 {
		return fmt.Errorf("%w: %s: at= and from= name a point; they cannot go with %s=", ErrParam, d.Fault, where[0])
	}
	if d.Persistent && d.At < 0 {
		return fmt.Errorf("%w: %s: a persistent decision holds from a point (from=N)", ErrParam, d.Fault)
	}
	if d.Persistent && f.Persists == Once {
		return fmt.Errorf("%w: %s: has no persistent form (%s)", ErrParam, d.Fault, f.PersistsWhy)
	}
	lists := slices.Contains(where, WhereList) || slices.Contains(where, WherePage)
	watches := slices.Contains(where, WhereWatch) || slices.Contains(where, WhereFrame)
	if lists && watches {
		return fmt.Errorf("%w: %s: list=/page= select LIST requests, watch=/frame= watch streams: no point is both", ErrParam, d.Fault)
	}
	return nil
}

// Validate checks every decision against the registry as ParseFault does;
// the error names the first bad decision's index. Match and Has ignore
// decisions that fail it, so a plan built as Go values is best validated
// before use.
func (p Plan) Validate() error {
	for i, d := range p.Decisions {
		if err := d.validate(); err != nil {
			return fmt.Errorf("decision %d: %w", i, err)
		}
	}
	return nil
}

// Canonical returns the decision in canonical form, the one ParseFault and
// Decode produce. Params holds every parameter of the fault explicitly
// (defaults filled in), plus any other key whose value is not 0. (A 0
// where-parameter means "any", the same as absent.) Params is nil when
// that leaves it empty. Equal decisions have DeepEqual canonical forms.
func (d Decision) Canonical() Decision {
	c := Decision{Fault: d.Fault, At: d.At, Persistent: d.Persistent}
	set := func(k string, v int) {
		if c.Params == nil {
			c.Params = map[string]int{}
		}
		c.Params[k] = v
	}
	f, _ := Lookup(d.Fault)
	for _, p := range f.Params {
		set(p.Name, d.Param(p.Name))
	}
	for k, v := range d.Params {
		if _, isParam := f.param(k); !isParam && v != 0 {
			set(k, v)
		}
	}
	return c
}

// Canonical returns the plan with every decision in canonical form and
// Decisions nil when empty.
func (p Plan) Canonical() Plan {
	var q Plan
	for _, d := range p.Decisions {
		q.Decisions = append(q.Decisions, d.Canonical())
	}
	return q
}

// Equal reports whether two decisions are the same: fault, At, and every
// parameter's value as Param reads it. So a default given explicitly
// equals one left out, and a 0 where-parameter equals an absent one. A nil
// Params equals an empty one.
func (d Decision) Equal(e Decision) bool {
	if d.Fault != e.Fault || d.At != e.At || d.Persistent != e.Persistent {
		return false
	}
	keys := map[string]bool{}
	for k := range d.Params {
		keys[k] = true
	}
	for k := range e.Params {
		keys[k] = true
	}
	for k := range keys {
		if d.Param(k) != e.Param(k) {
			return false
		}
	}
	return true
}

// Equal reports whether two plans have equal decisions in the same order
// (order matters: at a point the first decision that applies fires). A nil
// and an empty plan are equal.
func (p Plan) Equal(q Plan) bool {
	return slices.EqualFunc(p.Decisions, q.Decisions, Decision.Equal)
}

// String returns the decision's text form, which ParseFault reads back.
// It is the name, then "k=v" for the fault's parameters (in registry
// order, defaults included). Then come its where-parameters, other keys
// sorted, and "at=N" when At is 0 or more: "close-watch:after=5,at=3".
func (d Decision) String() string {
	var kv []string
	f, _ := Lookup(d.Fault)
	for _, p := range f.Params {
		kv = append(kv, fmt.Sprintf("%s=%d", p.Name, d.Param(p.Name)))
	}
	for _, w := range whereParams {
		if n := d.Param(w); n != 0 {
			kv = append(kv, fmt.Sprintf("%s=%d", w, n))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(d.Params)) {
		if _, isParam := f.param(k); !isParam && !isWhere(k) && d.Params[k] != 0 {
			kv = append(kv, fmt.Sprintf("%s=%d", k, d.Params[k]))
		}
	}
	switch {
	case d.At != -1 && d.Persistent:
		kv = append(kv, fmt.Sprintf("%s=%d", ParamFrom, d.At))
	case d.At != -1:
		kv = append(kv, fmt.Sprintf("%s=%d", ParamAt, d.At))
	}
	if len(kv) == 0 {
		return d.Fault
	}
	return d.Fault + ":" + strings.Join(kv, ",")
}

// String returns the plan's text form: one ParseFault string per decision,
// space-separated ("" for an empty plan); ParseText reads it back.
func (p Plan) String() string {
	s := make([]string, len(p.Decisions))
	for i, d := range p.Decisions {
		s[i] = d.String()
	}
	return strings.Join(s, " ")
}
