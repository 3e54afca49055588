package timeline

import (
	"fmt"
	"strings"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/history"
)

// FromRun lays out a fuzz run, every lane on the run's virtual clock:
//   - the truth's events, each when the replay first served it (see
//     servedLane);
//   - the target's requests (a LIST that starts over after the first is a
//     relist);
//   - its writes as the replay answered them;
//   - the handler's deliveries;
//   - the plan's firings, labelled as the story tells them;
//   - the violation.
//
// Events never served, and the recording's pages and bookmarks, go to rows
// without a time. Every truth mark keeps its recorded offset for the
// page's recorded axis. Every truth event, request, write, firing and
// delivery is one mark. The writes' row is there only when the target
// wrote.
func FromRun(r Run) *Timeline {
	t := &Timeline{Title: r.Title, Violation: r.Violation}
	if r.Truth != nil {
		t.Lanes = append(t.Lanes, servedLane(r.Truth, r.Served, r.ServedLogged))
	}
	var reqs, fired, delivered Row
	reqs.Name, fired.Name, delivered.Name = "requests", "decisions that fired", "handler deliveries"
	listed := false
	for _, q := range r.Requests {
		typ := q.Verb
		if q.Verb == "LIST" && !q.Continue {
			if listed {
				typ = "relist"
			}
			listed = true
		}
		label := fmt.Sprintf("%s %s rv=%q", q.Verb, q.Resource, q.RV)
		if q.Continue {
			label += " continue"
		}
		if q.Answer != "" {
			label += " → " + q.Answer
		}
		reqs.Marks = append(reqs.Marks, Mark{Kind: KindRequest, Type: typ, At: q.At, RV: q.RV, Label: label})
	}
	for _, f := range r.Firings {
		label := faults.Story([]faults.Firing{f}) // the story's words for one firing
		fired.Marks = append(fired.Marks, Mark{Kind: KindFiring, Type: f.Fault, At: f.At, Label: label})
	}
	for _, d := range r.Deliveries {
		delivered.Marks = append(delivered.Marks, Mark{Kind: KindDelivery, Type: string(d.Op), At: d.At, RV: d.RV, Key: d.Key,
			Label: strings.TrimSpace(fmt.Sprintf("%s %s rv %s", d.Op, d.Key, d.RV))})
	}
	rows := []Row{reqs, delivered}
	if len(r.Writes) > 0 {
		rows = []Row{reqs, writesRow(r.Writes), delivered}
	}
	t.Lanes = append(t.Lanes, Lane{Name: "target", Rows: rows}, Lane{Name: "fault plan", Rows: []Row{fired}})
	return t
}

// writesRow lays out the target's writes, one mark each. A mark is at the
// resourceVersion the write stored, or its object's before when it stored
// none. It is labelled like "update configmaps a/p rv 7→8 → HTTP 200".
func writesRow(writes []history.WriteAnswer) Row {
	row := Row{Name: "writes (as answered)"}
	for _, w := range writes {
		typ, verb := w.Verb, w.Verb
		if w.Subresource != "" {
			verb += "/" + w.Subresource
		}
		switch {
		case w.Code >= 400:
			typ = "refused"
		case w.DryRun:
			typ = "dry-run"
		}
		answer := strings.TrimSpace(fmt.Sprintf("HTTP %d %s", w.Code, w.Reason))
		if w.DryRun {
			answer += ", dry run"
		}
		rv := w.RVAfter
		if rv == "" {
			rv = w.RVBefore
		}
		row.Marks = append(row.Marks, Mark{Kind: KindWrite, Type: typ, At: w.At, RV: rv, Key: w.Key,
			Label: fmt.Sprintf("%s %s %s rv %s→%s → %s", verb, w.Resource.Name(), w.Key, none(w.RVBefore), none(w.RVAfter), answer)})
	}
	return row
}

// none is rv, or "none" when it is "".
func none(rv string) string {
	if rv == "" {
		return "none"
	}
	return rv
}
