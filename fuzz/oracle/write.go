package oracle

import (
	"fmt"
	"sort"
	"strings"

	"github.com/lwreplay/lwreplay/history"
)

// Write is history.WriteAnswer: one write of the target's as the replay
// answered it.
//
// Deprecated: use history.WriteAnswer (fuzz.Write in a fuzz test).
type Write = history.WriteAnswer

// WriteTimeline renders the first head and last tail of writes, one a
// line, with how many went between ("" when there are none).
func WriteTimeline(writes []history.WriteAnswer, head, tail int) string {
	var b strings.Builder
	for i, w := range writes {
		switch {
		case i < head || i >= len(writes)-tail:
			fmt.Fprintf(&b, "  %s\n", w)
		case i == head:
			fmt.Fprintf(&b, "  … %d more …\n", len(writes)-head-tail)
		}
	}
	return b.String()
}

// writeCounts renders writes by verb and answer, verbs in the order they
// first came, answers by code: "create ×2 (201 ×2), update ×5 (200 ×1,
// 409 Conflict ×4)" ("none" when there are none).
func writeCounts(writes []history.WriteAnswer) string {
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
