package fuzz

import (
	"bytes"
	"errors"
	"strings"
	"testing"

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
			ops := map[Op]int{}
			for _, d := range o.Deliveries {
				ops[d.Op]++
			}
			want := map[string]int{"request": len(o.Requests), "firing": len(o.Fired), "delivery": len(o.Deliveries),
				"event": len(o.Truth.Events), "delivery tombstone": ops[OpTombstone], "delivery add": ops[OpAdd]}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s marks: got %d, want %d", k, got[k], v)
				}
			}
			if ops[OpTombstone] == 0 || len(o.Fired) == 0 {
				t.Errorf("run: got %d tombstones and %d firings, want some of each", ops[OpTombstone], len(o.Fired))
			}
			answered := 0
			for _, l := range p.Lanes {
				for _, r := range l.Rows {
					for _, m := range r.Marks {
						if p.Kinds[int(m[0].(float64))] == "request" && strings.Contains(m[5].(string), "→ ") {
							answered++
						}
					}
				}
			}
			if answered == 0 {
				t.Errorf("requests answered by a firing: got none, want the firings' requests labelled")
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

func TestWriteTimelineNoObservation(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTimeline(&b, nil, nil); !errors.Is(err, ErrReport) {
		t.Errorf("WriteTimeline(nil): got error %v, want ErrReport", err)
	}
}
