package serving

import (
	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/observe"
)

// FiredBreaking returns the names of the breaking faults that fired during
// the run, each once, in firing order.
func FiredBreaking(obs *observe.Observation) []string {
	if obs == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, fr := range obs.Fired {
		if f, ok := faults.Lookup(fr.Fault); ok && f.Class == faults.Breaking && !seen[fr.Fault] {
			seen[fr.Fault] = true
			out = append(out, fr.Fault)
		}
	}
	return out
}
