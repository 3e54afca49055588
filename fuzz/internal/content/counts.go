package content

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

// WriteCounts renders writes by verb and answer ("none" when there are
// none). Verbs come in the order they first came, answers by code:
// "create ×2 (201 ×2), update ×5 (200 ×1, 409 Conflict ×4)".
func WriteCounts(writes []history.WriteAnswer) string {
	var verbs []string
	byVerb := map[string]map[string]int{}
	n := map[string]int{}
	for _, w := range writes {
		v := w.Verb
		if w.Subresource != "" {
			v += "/" + w.Subresource
		}
		if byVerb[v] == nil {
			byVerb[v] = map[string]int{}
			verbs = append(verbs, v)
		}
		answer := strings.TrimSpace(fmt.Sprintf("%d %s", w.Code, w.Reason))
		if w.DryRun {
			answer += " dry run"
		}
		byVerb[v][answer]++
		n[v]++
	}
	if len(verbs) == 0 {
		return "none"
	}
	parts := make([]string, len(verbs))
	for i, v := range verbs {
		answers := make([]string, 0, len(byVerb[v]))
		for a := range byVerb[v] {
			answers = append(answers, a)
		}
		sort.Strings(answers)
		for j, a := range answers {
			answers[j] = fmt.Sprintf("%s ×%d", a, byVerb[v][a])
		}
		parts[i] = fmt.Sprintf("%s ×%d (%s)", v, n[v], strings.Join(answers, ", "))
	}
	return strings.Join(parts, ", ")
}

// VerbCounts renders requests by verb: "WATCHLIST ×31".
func VerbCounts(reqs []observe.Request) string {
	n := map[string]int{}
	for _, r := range reqs {
		n[r.Verb]++
	}
	var s []string
	for _, v := range []string{"WATCHLIST", "LIST", "WATCH", "GET", "POST", "PUT", "PATCH", "DELETE"} {
		if n[v] > 0 {
			s = append(s, fmt.Sprintf("%s ×%d", v, n[v]))
		}
	}
	return strings.Join(s, ", ")
}
