package timeline

import (
	"cmp"
	"fmt"
	"slices"
	"time"

	"github.com/lwreplay/lwreplay/history"
)

// firstServing is when a run's replay first served one truth event, and
// how often it served it.
type firstServing struct {
	at   time.Duration
	how  string // "LIST page" or "watch frame"
	n    int
	seen bool
}

// firstServed finds, for each event of l (by index), the first LIST page
// or watch frame of served that carried it.
//   - A page carries the events whose object it lists at that
//     resourceVersion (key and resourceVersion alike).
//   - A frame carries the events of its resourceVersion: a DELETED frame
//     the deletions, any other the changes. A WatchList's initial ADDED
//     frame of an object last modified carries the modification.
//
// A frame carries no key. So the inferred events of several objects that
// share a resourceVersion all take its time.
func firstServed(l *history.Log, served []Serving) []firstServing {
	type keyRV struct{ key, rv string }
	out := make([]firstServing, len(l.Events))
	changes := map[keyRV][]int{}
	changesAt, deletionsAt := map[string][]int{}, map[string][]int{}
	for i, e := range l.Events {
		if e.Type == history.Deleted {
			deletionsAt[e.RV()] = append(deletionsAt[e.RV()], i)
			continue
		}
		k := keyRV{e.Object.Key(), e.RV()}
		changes[k] = append(changes[k], i)
		changesAt[e.RV()] = append(changesAt[e.RV()], i)
	}
	note := func(events []int, at time.Duration, how string) {
		for _, i := range events {
			if !out[i].seen {
				out[i] = firstServing{at: at, how: how, seen: true}
			}
			out[i].n++
		}
	}
	for _, s := range served {
		switch s.Type {
		case "":
			for _, o := range s.Items {
				note(changes[keyRV{o.Key(), o.ResourceVersion}], s.At, "LIST page")
			}
		case history.Added, history.Modified:
			note(changesAt[s.RV], s.At, "watch frame")
		case history.Deleted:
			note(deletionsAt[s.RV], s.At, "watch frame")
		}
	}
	return out
}

// servedLane lays out a run's truth on the run's clock, in three rows:
//   - each event at the first LIST page or watch frame that served it, in a
//     row by which served it first;
//   - the events never served (or all, when logged is false), in a row
//     without a time;
//   - the recorded LIST pages, bookmarks and errors, which belong to the
//     recording's clock.
//
// Every mark keeps its recorded offset (Recorded) and says it in its label.
func servedLane(l *history.Log, log []Serving, logged bool) Lane {
	first := firstServed(l, log)
	list := Row{Name: "served first in a LIST page", Recorded: true}
	watch := Row{Name: "served first in a watch frame", Recorded: true}
	why := "never served"
	if !logged {
		why = "serving not logged"
	}
	never := Row{Name: why + " (no run time)", Untimed: true, Recorded: true}
	for i, e := range l.Events {
		m := eventMark(e)
		m.Recorded = e.At
		f := first[i]
		if !logged || !f.seen {
			m.At = -1
			m.Label += fmt.Sprintf("; %s, recorded at %s", why, offset(e.At))
			never.Marks = append(never.Marks, m)
			continue
		}
		m.At = f.at
		m.Label += fmt.Sprintf("; served at %v in a %s (%s), recorded at %s", f.at, f.how, times(f.n), offset(e.At))
		if f.how == "LIST page" {
			list.Marks = append(list.Marks, m)
		} else {
			watch.Marks = append(watch.Marks, m)
		}
	}
	rec := Row{Name: "recorded marks (no run time)", Untimed: true, Recorded: true}
	for _, r := range logLane(l).Rows {
		for _, m := range r.Marks {
			if m.Kind == KindEvent {
				continue
			}
			m.Recorded, m.At = m.At, -1
			m.Label += fmt.Sprintf(" (%s, recorded at %s)", r.Name, offset(m.Recorded))
			rec.Marks = append(rec.Marks, m)
		}
	}
	lane := Lane{Name: fmt.Sprintf("truth as served: %s (%s)", l.Resource, l.Resource.Kind)}
	for _, r := range []Row{list, watch, never, rec} {
		if len(r.Marks) == 0 {
			continue
		}
		by := func(m Mark) time.Duration { return m.At }
		if r.Untimed {
			by = func(m Mark) time.Duration { return m.Recorded }
		}
		slices.SortStableFunc(r.Marks, func(a, b Mark) int { return cmp.Compare(by(a), by(b)) })
		lane.Rows = append(lane.Rows, r)
	}
	return lane
}

// offset renders a recorded offset ("unknown" when it is negative: a
// cassette without timing).
func offset(d time.Duration) string {
	if d < 0 {
		return "unknown"
	}
	return d.String()
}

// times renders how often something was served: "once", "3 times".
func times(n int) string {
	if n == 1 {
		return "once"
	}
	return fmt.Sprintf("%d times", n)
}
