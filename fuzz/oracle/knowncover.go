package oracle

import "slices"

// KnownCover returns the names of the known findings that together cover
// a run's broken invariants. Its results map each invariant's name to its
// error, nil when it held. One finding alone must match each broken
// invariant, at its own error's site or at the run's (sig.Site). A run
// that meets two known bugs at once is then known, not reported as new.
// Say, a restart storm and a leaked goroutine. Its ok is false when an
// invariant is left uncovered.
// No single Known matching sig is the caller's first test: names then
// lists each covering finding once, in known's order.
func KnownCover(results map[string]error, sig Signature, known []Known) (names []string, ok bool) {
	if len(sig.Invariants) == 0 {
		return nil, false
	}
	used := make([]bool, len(known))
	for _, name := range sig.Invariants {
		own := SignatureOf(map[string]error{name: results[name]})
		own.Details = nil
		if d := sig.Details[name]; len(d) > 0 {
			own.Details = map[string][]string{name: d}
		}
		atRun := own
		atRun.Site = sig.Site
		i := slices.IndexFunc(known, func(k Known) bool { return k.Matches(own) || k.Matches(atRun) })
		if i < 0 {
			return nil, false
		}
		used[i] = true
	}
	for i, k := range known {
		if used[i] {
			names = append(names, k.Name)
		}
	}
	return names, true
}
