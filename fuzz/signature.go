package fuzz

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

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
// shipped ones of the client-go in use, then o.Known, but those
// o.ReportKnown turns back on.
func knownOf(o Options) ([]oracle.Known, error) {
	var out []oracle.Known
	for _, name := range o.ReportKnown {
		named := func(k oracle.Known) bool { return k.Name == name }
		if !slices.ContainsFunc(oracle.KnownFindings, named) && !slices.ContainsFunc(o.Known, named) {
			return nil, fmt.Errorf("%w: ReportKnown: %q is neither a shipped known finding nor one of Known", ErrKnown, name)
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
		if !slices.Contains(o.ReportKnown, k.Name) {
			out = append(out, k)
		}
	}
	return out, nil
}

// knownSpins returns the sites of the known findings that are busy loops
// or deadlocks (no-spin at a site): a run given up at one is judged the
// same, sooner.
// A known finding to be reported is not among known, so its runs keep
// the whole spin bound.
func knownSpins(known []oracle.Known) []string {
	var out []string
	for _, k := range known {
		if k.Site != "" && slices.Contains(k.Invariants, "no-spin") && !slices.Contains(out, k.Site) {
			out = append(out, k.Site)
		}
	}
	return out
}

// ReportKnownEnv names the environment variable that adds names to
// Options.ReportKnown under go test (comma-separated): a campaign that
// reports a known finding again, e.g. to time how long the search takes to
// find it, or for a fresh reproducer.
const ReportKnownEnv = "LWREPLAY_REPORT_KNOWN"

// reportKnownFromEnv is o with the names ReportKnownEnv holds added to
// its ReportKnown.
func reportKnownFromEnv(o Options) Options {
	for name := range strings.SplitSeq(os.Getenv(ReportKnownEnv), ",") {
		if name = strings.TrimSpace(name); name != "" && !slices.Contains(o.ReportKnown, name) {
			o.ReportKnown = append(slices.Clip(o.ReportKnown), name)
		}
	}
	return o
}
