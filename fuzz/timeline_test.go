package fuzz

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/timeline/timelinetest"
)

func TestWriteTimeline(t *testing.T) {
	t.Parallel()
	c, data := tombstoneInput(t)
	out := c.Check(t, data)
	if !out.Failed() {
		t.Fatalf("check: got a run that held, want no-tombstone broken")
	}
	o := out.Observation
	tests := []struct {
		name          string
		results       map[string]error
		wantViolation bool
	}{
		{name: "timeline - failing run with results - pass", results: out.Results, wantViolation: true},
		{name: "timeline - run without results - pass", results: nil, wantViolation: false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := WriteTimeline(&b, o, tc.results); err != nil {
				t.Fatalf("WriteTimeline: got error %v, want none", err)
			}
			if ext := timelinetest.ExternalRefs(b.String()); len(ext) > 0 {
				t.Errorf("external references: got %q, want none", ext)
			}
			p, err := timelinetest.Parse(b.String())
			if err != nil {
				t.Fatalf("Parse: got error %v, want the page's data", err)
			}
			got := p.Counts()
			ops := map[observe.Op]int{}
			for _, d := range o.Deliveries {
				ops[d.Op]++
			}
			want := map[string]int{"request": len(o.Requests), "firing": len(o.Fired), "delivery": len(o.Deliveries),
				"event": len(o.TruthLog.Events), "delivery tombstone": ops[observe.OpTombstone], "delivery add": ops[observe.OpAdd]}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s marks: got %d, want %d", k, got[k], v)
				}
			}
			if ops[observe.OpTombstone] == 0 || len(o.Fired) == 0 {
				t.Errorf("run: got %d tombstones and %d firings, want some of each", ops[observe.OpTombstone], len(o.Fired))
			}
			answered, byFiring := 0, 0
			for _, l := range p.Lanes {
				for _, r := range l.Rows {
					for _, m := range r.Marks {
						if p.Kinds[int(m[0].(float64))] != "request" {
							continue
						}
						label := m[5].(string)
						if strings.Contains(label, "→ HTTP ") {
							answered++
						}
						if strings.Contains(label, "; ") {
							byFiring++
						}
					}
				}
			}
			if answered != len(o.Requests) {
				t.Errorf("requests labelled with their HTTP status: got %d, want all %d", answered, len(o.Requests))
			}
			if byFiring == 0 {
				t.Errorf("requests answered by a firing: got none, want the firings' requests labelled")
			}
			// One clock: the truth's events are placed when the replay
			// served them, so no delivery comes before its event.
			paired, early := p.DeliveryOrder(func(m timelinetest.Mark) (float64, bool) { return m.At, !m.Untimed })
			if paired == 0 || len(early) > 0 {
				t.Errorf("deliveries paired with their served events: got %d, %d of them placed before their event's serving (%q), want some and none before", paired, len(early), early)
			}
			if !p.Recorded {
				t.Errorf("recorded axis: got none, want the truth's recorded offsets on demand")
			}
			if (p.Violation != nil) != tc.wantViolation {
				t.Fatalf("violation: got %+v, want shown=%v", p.Violation, tc.wantViolation)
			}
			if tc.wantViolation && (len(p.Violation.Broken) == 0 || p.Violation.At <= 0) {
				t.Errorf("violation: got %+v, want the broken invariants at the run's end", p.Violation)
			}
		})
	}
}

// TestWriteTimelineOneClock checks a run's timeline has one clock.
// The truth's events are placed when the replay served them. So no handler
// delivery is placed before the serving of the event it delivers. That
// holds for a fault-free run, whose watch serves every recorded change at
// once. It holds as much for the tombstone run, whose relist serves them
// after the backoff.
func TestWriteTimelineOneClock(t *testing.T) {
	t.Parallel()
	c, tombstone := tombstoneInput(t)
	tests := []struct {
		name string
		data []byte
	}{
		{name: "one clock - tombstone run, relist after a 410 - no delivery before its serving - pass", data: tombstone},
		{name: "one clock - fault-free run, LIST+WATCH - no delivery before its serving - pass", data: []byte{0, 0}},
		{name: "one clock - fault-free run, WatchList - no delivery before its serving - pass", data: []byte{0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			o := c.Check(t, tc.data).Observation
			if o == nil || !o.ServingsLogged {
				t.Fatalf("observation: got %+v, want one with the replay's servings logged", o)
			}
			var b bytes.Buffer
			if err := WriteTimeline(&b, o, nil); err != nil {
				t.Fatalf("WriteTimeline: got error %v, want none", err)
			}
			p, err := timelinetest.Parse(b.String())
			if err != nil {
				t.Fatalf("Parse: got error %v, want the page's data", err)
			}
			paired, early := p.DeliveryOrder(func(m timelinetest.Mark) (float64, bool) { return m.At, !m.Untimed })
			if paired == 0 || len(early) > 0 {
				t.Errorf("deliveries paired with their served events: got %d, %d of them placed before their event's serving (%q), want some and none before", paired, len(early), early)
			}
			end := float64(o.EndedAt) / float64(time.Millisecond)
			for _, m := range p.Marks() {
				if m.Kind == "event" && !m.Untimed && (m.At < 0 || m.At > end) {
					t.Errorf("%s: got it at %v ms, want it within the run (0 to %v ms)", m.Label, m.At, end)
				}
			}
		})
	}
}
