package timeline

import (
	"fmt"
	"strings"

	"github.com/lwreplay/lwreplay/faults"
)

// FromRun lays out a fuzz run: the truth's events (as FromHistory lays out
// its log), then the target's requests (a LIST that starts over after the
// first is a relist), the plan's firings labelled as the story tells
// them, the handler's deliveries, and the violation. Every request,
// firing and delivery is one mark.
func FromRun(r Run) *Timeline {
	t := &Timeline{Title: r.Title, Violation: r.Violation}
	if r.Truth != nil {
		lane := logLane(r.Truth)
		lane.Name = "truth (recorded offsets): " + lane.Name
		t.Lanes = append(t.Lanes, lane)
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
		delivered.Marks = append(delivered.Marks, Mark{Kind: KindDelivery, Type: d.Op, At: d.At, RV: d.RV, Key: d.Key,
			Label: strings.TrimSpace(fmt.Sprintf("%s %s rv %s", d.Op, d.Key, d.RV))})
	}
	t.Lanes = append(t.Lanes, Lane{Name: "target", Rows: []Row{reqs, delivered}}, Lane{Name: "fault plan", Rows: []Row{fired}})
	return t
}
