package faults

import (
	"fmt"
	"strings"
)

// Firing is a decision that fired, as the replayer reports it.
type Firing struct {
	// Point is where the decision matched.
	Point Point
	// Fault is the fault's registry name.
	Fault string
	// Detail is what the point does not tell, in a few words: the RV
	// involved, how many events went before, the code sent ("rv 140",
	// "after event 5, rv 140", "503"). Story prints it in parentheses.
	Detail string
}

// phrase is how a fault reads in words.
type phrase struct {
	// do is the action in the imperative, for Describe: "close the watch
	// after 5 events".
	do func(d Decision) string
	// did is a past-tense sentence for Story, with at most one %s for the
	// point (Point.String): "%s closed".
	did string
}

// phrases holds a phrase for every registered fault.
var phrases = map[string]phrase{
	"drop-bookmark":      {do: fixed("drop the frame if it is a BOOKMARK"), did: "%s dropped"},
	"drop-all-bookmarks": {do: fixed("send no BOOKMARK but the initial-events-end one"), did: "%s sent without BOOKMARKs"},
	"close-watch": {do: func(d Decision) string {
		if n := d.Param("after"); n > 0 {
			return "close the watch after " + count(n, "event")
		}
		return "close the watch before any event"
	}, did: "%s closed"},
	"expire-watch": {do: func(d Decision) string {
		if n := d.Param("after"); n > 0 {
			return "send a 410 Expired ERROR after " + count(n, "event")
		}
		return "answer 410 Expired at open"
	}, did: "%s answered 410 Expired"},
	"expire-continue": {do: fixed("answer 410 Expired"), did: "%s answered 410 Expired"},
	"too-large-rv":    {do: fixed("answer 504 Timeout, ResourceVersionTooLarge"), did: "%s answered 504 ResourceVersionTooLarge"},
	"stale-list": {do: func(d Decision) string {
		return `serve a LIST at resourceVersion "0" from a snapshot ` + count(d.Param("back"), "event") + " old"
	}, did: "%s served from a stale snapshot"},
	"http-error": {do: func(d Decision) string {
		return fmt.Sprintf("answer HTTP %d", d.Param("code"))
	}, did: "%s answered an HTTP error"},
	"reset": {do: fixed("cut the connection mid-frame"), did: "%s cut mid-frame"},
	"delay": {do: func(d Decision) string {
		return fmt.Sprintf("pause %d ms", d.Param("ms"))
	}, did: "%s delayed"},
	"watchlist-unsupported": {do: fixed("refuse WatchList as on etcd 3.4 (ERROR 500)"), did: "%s refused WatchList"},
	"opaque-rv":             {do: fixed("rewrite every resourceVersion to an opaque string"), did: "every resourceVersion rewritten to an opaque string"},
	"recreate": {do: func(d Decision) string {
		return fmt.Sprintf("delete and recreate object %d (key order) under a new UID while the client is away", d.Param("object"))
	}, did: "object recreated before %s"},
	"reorder":                    {do: fixed("swap the next two events"), did: "%s swapped with the next event"},
	"duplicate":                  {do: fixed("send the event twice"), did: "%s sent twice"},
	"drop-event":                 {do: fixed("drop the event"), did: "%s dropped"},
	"rv-regress":                 {do: fixed("send the event with an older resourceVersion"), did: "%s sent with an older resourceVersion"},
	"bookmark-regress":           {do: fixed("insert a BOOKMARK with an older resourceVersion"), did: "older BOOKMARK inserted before %s"},
	"garble-frame":               {do: fixed("send invalid JSON in its place"), did: "%s garbled"},
	"missing-initial-events-end": {do: fixed("never send the initial-events-end BOOKMARK"), did: "%s sent no initial-events-end BOOKMARK"},
}

// fixed is a do func for a fault without parameters.
func fixed(s string) func(Decision) string {
	return func(Decision) string { return s }
}

// count renders "1 event", "5 events".
func count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Describe returns the plan in words, one clause per decision in order,
// where then what: "at point 3: close the watch after 5 events; every LIST
// page 2: answer 410 Expired". An empty plan is "no faults".
func Describe(p Plan) string {
	if len(p.Decisions) == 0 {
		return "no faults"
	}
	s := make([]string, len(p.Decisions))
	for i, d := range p.Decisions {
		s[i] = describe(d)
	}
	return strings.Join(s, "; ")
}

// describe renders one decision.
func describe(d Decision) string {
	f, ok := Lookup(d.Fault)
	if !ok {
		return fmt.Sprintf("unknown fault %q (never fires)", d.Fault)
	}
	what := f.Doc
	if ph, ok := phrases[d.Fault]; ok && ph.do != nil {
		what = ph.do(d)
	}
	return where(d, f) + ": " + what
}

// where renders the points a decision selects: "at point 3", "every LIST
// page 2", "frame 5 of watch #2", "throughout".
func where(d Decision, f Fault) string {
	if d.At >= 0 {
		return fmt.Sprintf("at point %d", d.At)
	}
	if f.Point == PlanPoint {
		return "throughout"
	}
	watch, list, page, frame := d.Param(WhereWatch), d.Param(WhereList), d.Param(WherePage), d.Param(WhereFrame)
	listing := f.Point == ListPoint || (f.Point == RequestPoint && (list > 0 || page > 0))
	switch {
	case listing && list > 0 && page > 0:
		return fmt.Sprintf("LIST #%d if it is page %d", list, page)
	case listing && list > 0:
		return fmt.Sprintf("LIST #%d", list)
	case listing && page > 0:
		return fmt.Sprintf("every LIST page %d", page)
	case listing:
		return "every LIST"
	case f.Point == FramePoint && watch > 0 && frame > 0:
		return fmt.Sprintf("frame %d of watch #%d", frame, watch)
	case f.Point == FramePoint && watch > 0:
		return fmt.Sprintf("every frame of watch #%d", watch)
	case f.Point == FramePoint && frame > 0:
		return fmt.Sprintf("frame %d of every watch", frame)
	case f.Point == FramePoint:
		return "every frame"
	case watch > 0:
		return fmt.Sprintf("watch #%d", watch)
	case f.Point == WatchPoint:
		return "every watch"
	case f.Point == RequestPoint:
		return "every LIST and watch"
	}
	return "nowhere"
}

// Story tells what the fired decisions did, in order, one clause each:
// "watch #2 closed (after event 5, rv 140); LIST #3 page 2 answered 410
// Expired; watch #1 frame 7 (BOOKMARK) dropped (rv 83)". Nothing fired is
// "no fault fired".
func Story(fired []Firing) string {
	if len(fired) == 0 {
		return "no fault fired"
	}
	s := make([]string, len(fired))
	for i, f := range fired {
		switch ph, ok := phrases[f.Fault]; {
		case ok && strings.Contains(ph.did, "%s"):
			s[i] = fmt.Sprintf(ph.did, f.Point)
		case ok && ph.did != "":
			s[i] = ph.did
		default:
			s[i] = fmt.Sprintf("%s: %s", f.Point, f.Fault)
		}
		if f.Detail != "" {
			s[i] += " (" + f.Detail + ")"
		}
	}
	return strings.Join(s, "; ")
}
