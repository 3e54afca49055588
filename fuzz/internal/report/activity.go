package report

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/internal/content"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
)

// activitySummary says what the target did, for a report. It gives its
// requests per resource by verb over the run's virtual time. It gives how
// often it started over: a LIST from the start of a chain, or a WatchList.
// It gives when it synced, and its writes by verb and answer if it wrote:
//
//	requests: configmaps: WATCHLIST ×201 from 0s to 0s (201 starts over); synced: never
//	requests: configmaps: LIST ×1, POST ×2, PUT ×9 from 0s to 4s (1 starts over); synced: 0s; writes: create ×2 (201 ×2), update ×9 (200 ×2, 409 Conflict ×7)
func activitySummary(o *observe.Observation) string {
	if o == nil {
		return "unknown"
	}
	byRes := map[string][]observe.Request{}
	for _, r := range o.Requests {
		byRes[r.Resource] = append(byRes[r.Resource], r)
	}
	names := make([]string, 0, len(byRes))
	for n := range byRes {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		reqs := byRes[n]
		starts := 0
		for _, r := range reqs {
			if r.Verb == "WATCHLIST" || (r.Verb == "LIST" && !r.Continue) {
				starts++
			}
		}
		parts = append(parts, fmt.Sprintf("%s: %s from %v to %v (%d starts over)", n, content.VerbCounts(reqs),
			reqs[0].At.Round(time.Millisecond), reqs[len(reqs)-1].At.Round(time.Millisecond), starts))
	}
	synced := "never"
	if o.SyncedAt >= 0 {
		synced = o.SyncedAt.Round(time.Millisecond).String()
	}
	if len(parts) == 0 {
		parts = append(parts, "none")
	}
	out := "requests: " + strings.Join(parts, "; ") + "; synced: " + synced
	if len(o.Writes) > 0 {
		out += "; writes: " + content.WriteCounts(o.Writes)
	}
	return out
}

// requestRows renders the first head and last tail requests of a run,
// one a line, with how many went between.
func requestRows(reqs []observe.Request, head, tail int) string { return rows(reqs, head, tail) }

// writeRows renders the first head and last tail of writes, one a line,
// with how many went between ("" when there are none).
func writeRows(writes []history.WriteAnswer, head, tail int) string { return rows(writes, head, tail) }

// rows renders the first head and last tail items, one a line, with how
// many went between.
func rows[T fmt.Stringer](items []T, head, tail int) string {
	var b strings.Builder
	for i, it := range items {
		switch {
		case i < head || i >= len(items)-tail:
			fmt.Fprintf(&b, "  %s\n", it)
		case i == head:
			fmt.Fprintf(&b, "  … %d more …\n", len(items)-head-tail)
		}
	}
	return b.String()
}
