package oracle

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lwreplay/lwreplay/history"
)

// Write is one write request of the target's as the replay answered it:
// part of what the apiserver served (Observation.Writes), in the order it
// answered them — stored, refused and dry runs alike. The target's side
// of the same request (when it sent it, what the run's bound did with it)
// is its Request.
type Write struct {
	// At is when it was answered (virtual time since the run started).
	At time.Duration
	// Verb is kube-apiserver's verb: create, update, patch, delete or
	// deletecollection (a server-side apply is a patch).
	Verb string
	// Subresource is the subresource written ("" or "status").
	Subresource string
	// Resource is the resource written.
	Resource history.Resource
	// Key is the object's namespace/name key ("" when neither the request
	// nor its answer named one).
	Key string
	// RVBefore is the resourceVersion of the object stored under Key
	// before the write ("" when none was).
	RVBefore string
	// RVAfter is the resourceVersion of the object stored under Key after
	// it ("" when none is); RVBefore when nothing was stored.
	RVAfter string
	// Code is the HTTP status of the answer.
	Code int
	// Reason is a refusal's Status reason (Conflict, AlreadyExists, ...;
	// "" for a success).
	Reason string
	// DryRun says the request asked dryRun=All: nothing was stored.
	DryRun bool
	// Event is what the write stored in its resource's log of the served
	// history ("" when nothing).
	Event history.EventType
}

// Stored reports whether the write changed the served history.
func (w Write) Stored() bool { return w.Event != "" }

// String renders w as a report line does: "1.5s update configmaps a/made
// rv 1013→1014 200", "… rv 7→7 409 Conflict", "… dry run".
func (w Write) String() string {
	verb := w.Verb
	if w.Subresource != "" {
		verb += "/" + w.Subresource
	}
	s := fmt.Sprintf("%v %s %s %s rv %s→%s %d", w.At.Round(time.Millisecond), verb, w.Resource.Name(), w.Key,
		rvOrNone(w.RVBefore), rvOrNone(w.RVAfter), w.Code)
	if w.Reason != "" {
		s += " " + w.Reason
	}
	if w.DryRun {
		s += " dry run"
	}
	return s
}

// rvOrNone is rv, or "none" when it is "".
func rvOrNone(rv string) string {
	if rv == "" {
		return "none"
	}
	return rv
}

// WriteTimeline renders the first head and last tail of writes, one a
// line, with how many went between ("" when there are none).
func WriteTimeline(writes []Write, head, tail int) string {
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
func writeCounts(writes []Write) string {
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
