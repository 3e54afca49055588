package oracle

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lwreplay/lwreplay/fuzz/internal/site"
	"github.com/lwreplay/lwreplay/fuzz/observe"
)

// requestSite returns where the goroutine that sent r was (see site.OfPCs; ""
// when the run did not keep its stack).
func requestSite(r observe.Request) string {
	return site.OfPCs(r.Stack)
}

// requestsPerResource counts log's requests by resource.
func requestsPerResource(log []observe.Request) map[string]int {
	per := map[string]int{}
	for _, r := range log {
		per[r.Resource]++
	}
	return per
}

// requestCounts renders requests per resource, most first: "configmaps:
// 1001, namespaces: 2".
func requestCounts(per map[string]int) string {
	names := make([]string, 0, len(per))
	for k := range per {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool {
		if per[names[i]] != per[names[j]] {
			return per[names[i]] > per[names[j]]
		}
		return names[i] < names[j]
	})
	s := make([]string, len(names))
	for i, k := range names {
		s[i] = fmt.Sprintf("%s: %d", k, per[k])
	}
	return strings.Join(s, ", ")
}
