package tombstone

import (
	"bytes"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz"
	"github.com/lwreplay/lwreplay/timeline/timelinetest"
)

// foundRunTimeline renders the timeline of the run of the input found by
// fuzzing, with the planted handler, and returns it with the outcome.
func foundRunTimeline(t *testing.T) (string, *fuzz.Outcome) {
	t.Helper()
	html, out := runTimeline(t, foundByFuzzing)
	if !out.Failed() {
		t.Fatalf("found input: got a run that held, want a failing one")
	}
	return html, out
}

// runTimeline renders the timeline of the run of data, with the planted
// handler, and returns it with the outcome.
func runTimeline(t *testing.T, data []byte) (string, *fuzz.Outcome) {
	t.Helper()
	c, err := fuzz.NewCampaign(fuzz.Options{
		Cassettes:  fuzz.Glob("../../cassettes/real-configmaps-pods-*.yaml"),
		Target:     mirrorTarget,
		Invariants: []string{"converged", "clean-stop", "mirror-matches-truth"},
		Extra:      []fuzz.Invariant{mirrorMatchesTruth},
	})
	if err != nil {
		t.Fatalf("NewCampaign: got error %v, want none", err)
	}
	out := c.Check(t, data)
	if out.Observation == nil {
		t.Fatalf("run of %q: got no observation, want one", data)
	}
	var b bytes.Buffer
	if err := fuzz.WriteTimeline(&b, out.Observation, out.Results); err != nil {
		t.Fatalf("WriteTimeline: got error %v, want none", err)
	}
	return b.String(), out
}

func TestFoundInputTimeline(t *testing.T) {
	t.Parallel()
	html, out := foundRunTimeline(t)
	if ext := timelinetest.ExternalRefs(html); len(ext) > 0 {
		t.Errorf("external references: got %q, want none", ext)
	}
	p, err := timelinetest.Parse(html)
	if err != nil {
		t.Fatalf("Parse: got error %v, want the page's data", err)
	}
	o := out.Observation
	got := p.Counts()
	tests := []struct {
		name string
		got  int
		want int
	}{
		{name: "timeline - found input - one mark per request - pass", got: got["request"], want: len(o.Requests)},
		{name: "timeline - found input - one mark per firing - pass", got: got["firing"], want: len(o.Fired)},
		{name: "timeline - found input - one mark per delivery - pass", got: got["delivery"], want: len(o.Deliveries)},
		{name: "timeline - found input - one mark per truth event - pass", got: got["event"], want: len(o.TruthLog.Events)},
		{name: "timeline - found input - a relist after the 410 - pass", got: min(got["request relist"], 1), want: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %d, want %d", tc.got, tc.want)
			}
		})
	}
	if len(o.Fired) == 0 || len(o.Requests) == 0 || got["delivery tombstone"] == 0 {
		t.Errorf("observation: got %d firings, %d requests, %d tombstones delivered, want some of each", len(o.Fired), len(o.Requests), got["delivery tombstone"])
	}
	if p.Violation == nil || len(p.Violation.Broken) == 0 {
		t.Fatalf("violation: got %+v, want the broken invariants", p.Violation)
	}
	// The planted handler panics on the first tombstone: the violation is
	// marked there, before the run ends.
	if at := time.Duration(p.Violation.At * float64(time.Millisecond)); o.FirstPanicAt < 0 || at >= o.EndedAt {
		t.Errorf("violation at %v: got it at or after the run's end %v (first panic %v), want it at the first panic", at, o.EndedAt, o.FirstPanicAt)
	}
}
