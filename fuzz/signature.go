package fuzz

import (
	"errors"
	"fmt"
	"slices"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
)

// Signature returns the signature of what o broke (no invariants when
// nothing broke).
func (o *Outcome) Signature() oracle.Signature {
	return oracle.SignatureOf(o.Results)
}

// ErrKnown says Options name a known finding wrongly.
var ErrKnown = errors.New("known finding")

// knownOf returns the known findings o holds a campaign to. Those are the
// shipped ones of the client-go in use but those o.ReportKnown turns back
// on, then o.Known.
func knownOf(o Options) ([]oracle.Known, error) {
	var out []oracle.Known
	for _, name := range o.ReportKnown {
		if !slices.ContainsFunc(oracle.KnownFindings, func(k oracle.Known) bool { return k.Name == name }) {
			return nil, fmt.Errorf("%w: ReportKnown: %q is no shipped known finding", ErrKnown, name)
		}
	}
	v := harness.ClientGoVersion()
	for _, k := range oracle.KnownFindings {
		if k.In(v) && !slices.Contains(o.ReportKnown, k.Name) {
			out = append(out, k)
		}
	}
	for _, k := range o.Known {
		if k.Name == "" || len(k.Invariants) == 0 {
			return nil, fmt.Errorf("%w: Known %q: want a name and the invariants it breaks", ErrKnown, k.Name)
		}
		for name := range k.Details {
			if !slices.Contains(k.Invariants, name) {
				return nil, fmt.Errorf("%w: Known %q: details of %q, which is not among its invariants", ErrKnown, k.Name, name)
			}
		}
		out = append(out, k)
	}
	return out, nil
}
