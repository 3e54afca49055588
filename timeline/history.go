package timeline

import (
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/lwreplay/lwreplay/history"
)

// interaction names one recorded request: a LIST page or a watch stream.
type interaction struct {
	file string
	n    int
}

// FromHistory lays out a recorded history. It makes a lane per resource,
// and in it a row per recorded LIST page or watch stream (in recorded
// order). One more row holds the events the history inferred from a
// relist. Events, list resourceVersions, bookmarks and errors go to the row
// of the interaction that recorded them. Without timing (a cassette whose
// At are negative), marks are placed by recorded order and the timeline is
// Ordinal.
func FromHistory(h *history.History, title string) *Timeline {
	t := &Timeline{Title: title}
	for _, l := range h.Logs {
		t.Lanes = append(t.Lanes, logLane(l))
	}
	if len(h.Errors) > 0 {
		row := Row{Name: "not tied to a resource"}
		for _, e := range h.Errors {
			row.Marks = append(row.Marks, errorMark(e, -1))
		}
		t.Lanes = append(t.Lanes, Lane{Name: "other errors", Rows: []Row{row}})
	}
	t.Ordinal = untimed(t)
	if t.Ordinal {
		ordinal(t)
	}
	return t
}

// logLane lays out one resource's log.
func logLane(l *history.Log) Lane {
	rows := map[interaction]*Row{}
	var order []interaction
	rowOf := func(loc history.Location) *Row {
		k := interaction{loc.File, loc.Interaction}
		if loc.File == "" {
			k = interaction{"", -1}
		}
		r, ok := rows[k]
		if !ok {
			r = &Row{}
			rows[k] = r
			order = append(order, k)
		}
		return r
	}
	firstEvent := map[interaction]int{} // smallest event index per interaction
	for _, e := range l.Events {
		k := interaction{e.From.File, e.From.Interaction}
		if v, ok := firstEvent[k]; !ok || e.From.Event < v {
			firstEvent[k] = e.From.Event
		}
		rowOf(e.From).Marks = append(rowOf(e.From).Marks, eventMark(e))
	}
	sawBookmark := map[interaction]bool{}
	for _, m := range l.Marks {
		k := interaction{m.From.File, m.From.Interaction}
		mk := Mark{Kind: KindPage, Type: "LIST", At: m.At, RV: m.RV, Label: "list at rv " + m.RV}
		if m.Type == history.Bookmark {
			mk = Mark{Kind: KindBookmark, Type: "BOOKMARK", At: m.At, RV: m.RV, Label: "bookmark rv " + m.RV}
			// The bookmark that ends a WatchList's initial events comes first in its
			// stream. It comes after the initial ADDED events, which the log keeps as
			// its state, not as events.
			if v, ok := firstEvent[k]; !sawBookmark[k] && m.From.Event > 0 && (!ok || v > m.From.Event) {
				mk.Type, mk.Label = "initial-events-end", "initial-events-end bookmark rv "+m.RV
			}
			sawBookmark[k] = true
		}
		r := rowOf(m.From)
		r.Marks = append(r.Marks, mk)
	}
	when := startTimes(rows)
	for _, e := range l.Errors {
		r := rowOf(e.From)
		r.Marks = append(r.Marks, errorMark(e, at(when, e.From)))
	}
	slices.SortFunc(order, func(a, b interaction) int {
		if a.n < 0 || b.n < 0 {
			return cmp.Compare(b.n, a.n) // the inferred row last
		}
		return cmp.Or(strings.Compare(a.file, b.file), cmp.Compare(a.n, b.n))
	})
	lane := Lane{Name: fmt.Sprintf("%s (%s)", l.Resource, l.Resource.Kind)}
	for _, k := range order {
		r := rows[k]
		r.Name, r.File, r.Interaction = rowName(k, r.Marks), k.file, k.n
		slices.SortStableFunc(r.Marks, func(a, b Mark) int { return cmp.Compare(a.At, b.At) })
		lane.Rows = append(lane.Rows, *r)
	}
	return lane
}

// rowName says what a row's interaction was: "LIST #3 (f.yaml)",
// "WATCH #5 (f.yaml)", "inferred from a relist".
func rowName(k interaction, marks []Mark) string {
	if k.n < 0 {
		return "inferred from a relist"
	}
	verb := "ERROR"
	for _, m := range marks {
		switch m.Kind {
		case KindPage:
			verb = "LIST"
		case KindEvent, KindBookmark:
			verb = "WATCH"
		}
	}
	return fmt.Sprintf("%s #%d (%s)", verb, k.n, filepath.Base(k.file))
}

// startTimes returns the earliest known time of each row.
func startTimes(rows map[interaction]*Row) map[interaction]time.Duration {
	when := map[interaction]time.Duration{}
	for k, r := range rows {
		for _, m := range r.Marks {
			if v, ok := when[k]; m.At >= 0 && (!ok || m.At < v) {
				when[k] = m.At
			}
		}
	}
	return when
}

// at places an error, which carries no time of its own. It is placed at
// its interaction's time, else at the nearest earlier interaction's in the
// same file, else unknown (-1).
func at(when map[interaction]time.Duration, loc history.Location) time.Duration {
	best, bestN := time.Duration(-1), -1
	for k, v := range when {
		if k.file == loc.File && k.n <= loc.Interaction && k.n > bestN {
			best, bestN = v, k.n
		}
	}
	return best
}

func eventMark(e history.Event) Mark {
	m := Mark{Kind: KindEvent, Type: string(e.Type), At: e.At, RV: e.RV(), JSON: e.Object.Raw}
	m.Key = e.Object.Key()
	m.Label = fmt.Sprintf("%s %s rv %s", e.Type, m.Key, m.RV)
	if e.From.File == "" {
		m.Label += " (inferred)"
	}
	return m
}

func errorMark(e history.RecordedError, at time.Duration) Mark {
	return Mark{Kind: KindError, Type: fmt.Sprint(e.Code), At: at, JSON: e.Body,
		Label: strings.TrimSpace(fmt.Sprintf("%d %s %s", e.Code, e.Reason, e.Message))}
}

// untimed reports whether no mark of t has a time.
func untimed(t *Timeline) bool {
	for _, l := range t.Lanes {
		for _, r := range l.Rows {
			for _, m := range r.Marks {
				if m.At > 0 {
					return false
				}
			}
		}
	}
	return true
}

// ordinal places every mark by its row's order, rows one after another:
// At becomes a position (in nanoseconds, shown as a count).
func ordinal(t *Timeline) {
	pos := 0
	for i := range t.Lanes {
		for j := range t.Lanes[i].Rows {
			for k := range t.Lanes[i].Rows[j].Marks {
				t.Lanes[i].Rows[j].Marks[k].At = time.Duration(pos)
				pos++
			}
		}
	}
}
