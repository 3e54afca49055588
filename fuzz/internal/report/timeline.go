package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/internal/content"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/timeline"
)

// WriteTimeline writes the timeline of a run as one self-contained HTML
// page, every lane on the run's virtual clock. The truth's events are
// placed when the replay first served them (o.Servings). Those never
// served have no time, and each keeps its recorded offset on demand. Then
// come the target's requests with each one's HTTP status, and the plan's
// decisions that fired, in the story's words. The target's writes follow
// as the replay answered them (verb, key, resourceVersion before → after,
// code), then the handler's deliveries. When results holds a broken
// invariant, the violation is marked when the run saw it (detectedAt).
// It carries the diff of the target's final store against the truth's
// final state. results may be nil (no violation shown).
func WriteTimeline(w io.Writer, o *observe.Observation, results map[string]error) error {
	if o == nil {
		return fmt.Errorf("%w: timeline: no observation", ErrReport)
	}
	run := timeline.Run{Title: "lwreplay run: " + o.Resource.String(), Truth: o.TruthLog, Firings: o.Fired, ServedLogged: o.ServingsLogged}
	if o.TruthLog != nil {
		for _, v := range o.Servings {
			if v.Resource.ID() == o.TruthLog.Resource.ID() {
				run.Served = append(run.Served, v)
			}
		}
	}
	answers := firedAt(o)
	for i, q := range o.Requests {
		answer := answers[i]
		if q.Code != 0 {
			answer = strings.TrimSuffix(fmt.Sprintf("HTTP %d; %s", q.Code, answer), "; ")
		}
		run.Requests = append(run.Requests, timeline.AnsweredRequest{Request: q, Answer: answer})
	}
	run.Writes, run.Deliveries = o.Writes, o.Deliveries
	var broken []string
	for _, name := range oracle.InReportOrder(results) {
		if err := results[name]; err != nil {
			broken = append(broken, fmt.Sprintf("%s: %v", name, err))
		}
	}
	if len(broken) > 0 {
		v := &timeline.Violation{At: detectedAt(o, results), Broken: broken}
		if o.TruthLog != nil {
			v.Diff = content.StoreDiff(o.Store, o.TruthLog.StateAt(o.TruthLog.End()))
		}
		run.Violation = v
	}
	t := timeline.FromRun(run)
	if o.TruthLog != nil {
		return timeline.Write(w, t, o.TruthLog.Order())
	}
	return timeline.Write(w, t, nil)
}

// detectedAt is when the run saw its first broken invariant's evidence.
// That is the request that crossed the hot-loop bound, the target's first
// panic, or else the end of the run, where the invariants judge what it
// did.
func detectedAt(o *observe.Observation, results map[string]error) time.Duration {
	at := o.EndedAt
	if b := o.BoundEnd; b != nil && results[b.Invariant] != nil && b.At < at {
		at = b.At
	} else if results["no-hot-loop"] != nil && o.HotLoop != nil && o.HotLoop.At < at {
		at = o.HotLoop.At
	}
	if results["clean-stop"] != nil && o.FirstPanicAt >= 0 && o.FirstPanicAt < at {
		at = o.FirstPanicAt
	}
	return at
}

// WriteTimelineFile writes the timeline of o, judged results, to
// dir/name.
func WriteTimelineFile(dir, name string, o *observe.Observation, results map[string]error) error {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return fmt.Errorf("%w: %v", ErrReport, err)
	}
	w := bufio.NewWriter(f)
	err = WriteTimeline(w, o, results)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("%w: %v", ErrReport, cerr)
	}
	return err
}

// firedAt says, by index in o.Requests, how the plan answered a request:
// the story's words for the firings at it. A point's Request counts the
// server's LISTs (every page) or WATCHes from 1, in the order the target
// sent them. Other requests, and requests no decision fired at, have none.
func firedAt(o *observe.Observation) map[int]string {
	lists, watches := map[int]int{}, map[int]int{} // ordinal → index
	nl, nw := 0, 0
	for i, q := range o.Requests {
		switch q.Verb {
		case "LIST":
			nl++
			lists[nl] = i
		case "WATCH", "WATCHLIST":
			nw++
			watches[nw] = i
		}
	}
	out := map[int]string{}
	for _, f := range o.Fired {
		by := watches
		if f.Point.Kind == faults.ListPoint {
			by = lists
		}
		i, ok := by[f.Point.Request]
		if !ok {
			continue
		}
		clause := faults.Story([]faults.Firing{f})
		if out[i] != "" {
			clause = out[i] + "; " + clause
		}
		out[i] = clause
	}
	return out
}
