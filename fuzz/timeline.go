package fuzz

import (
	"io"

	"github.com/lwreplay/lwreplay/fuzz/internal/report"
)

// TimelineFile is the failure's timeline, inside a failure's directory:
// one self-contained HTML page (see WriteTimeline).
const TimelineFile = "timeline.html"

// WriteTimeline writes the timeline of a run as one self-contained HTML
// page. Every lane is on the run's virtual clock:
//   - the truth's events, each when the replay first served it to the
//     target (a LIST page or watch frame of o.Servings); those never
//     served have no time, and each shows its recorded offset on demand;
//   - the target's requests;
//   - the plan's decisions that fired, in the story's words;
//   - each request's HTTP status;
//   - the target's writes as the replay answered them (verb, key,
//     resourceVersion before → after, code);
//   - the handler's deliveries.
//
// When results holds a broken invariant, the page marks the violation
// when the run saw it. That is the hot loop's request, the first panic,
// or else the end of the run, where the invariants judge the target.
// It adds the diff of the target's final store against the truth's
// final state. results may be nil (no violation shown).
func WriteTimeline(w io.Writer, o *Observation, results map[string]error) error {
	return report.WriteTimeline(w, o, results)
}

// writeTimelineFile writes out's timeline to dir.
func writeTimelineFile(dir string, out *Outcome) error {
	return report.WriteTimelineFile(dir, TimelineFile, out.Observation, out.Results)
}
