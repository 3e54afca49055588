package cli

import (
	"fmt"
	"strings"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/history"
)

// selectResources returns the resources of recorded (what the cassettes at
// paths recorded) to fuzz. Those are what names resolve to (see
// fuzz.ResolveResource), or every recorded resource when names is empty. A
// name that resolves to no recorded resource is a usage error naming the
// recorded ones.
func selectResources(recorded []fuzz.Recorded, paths, names []string) ([]fuzz.Recorded, error) {
	if len(recorded) == 0 {
		return nil, fmt.Errorf("no resource recorded in %s", strings.Join(paths, ", "))
	}
	if len(names) == 0 {
		return recorded, nil
	}
	all := make([]history.Resource, len(recorded))
	for i, r := range recorded {
		all[i] = r.Resource
	}
	var out []fuzz.Recorded
	seen := map[history.Resource]bool{}
	for _, name := range names {
		res, err := fuzz.ResolveResource(name, all)
		if err != nil {
			return nil, fmt.Errorf("%w: --resource: %v", errUsage, err)
		}
		if seen[res.ID()] {
			continue
		}
		seen[res.ID()] = true
		for _, r := range recorded {
			if r.Resource.ID() == res.ID() {
				out = append(out, r)
			}
		}
	}
	return out, nil
}

// resourcesText names the selected resources for the header. When some
// cassettes (recordings) did not record one, it says how many of the n
// did: "configmaps.v1, pods.v1 (2 of 3 cassettes)".
func resourcesText(selected []fuzz.Recorded, n int) string {
	parts := make([]string, len(selected))
	for i, r := range selected {
		parts[i] = r.Resource.String()
		if len(r.Recordings) < n {
			parts[i] += fmt.Sprintf(" (%d of %d cassettes)", len(r.Recordings), n)
		}
	}
	return strings.Join(parts, ", ")
}
