package timeline_test

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/timeline"
)

// servedLog is a log of one configmap a changed twice and deleted, and one
// configmap b made last. It is recorded a second and more into the
// recording.
func servedLog(t *testing.T) (*history.Log, map[string]*history.Object) {
	t.Helper()
	objs := map[string]*history.Object{}
	for _, v := range []struct{ name, rv string }{{"a", "10"}, {"a", "11"}, {"a", "12"}, {"b", "13"}} {
		o, _, _, err := history.ParseObject(fmt.Appendf(nil, `{"metadata":{"namespace":"ns","name":%q,"resourceVersion":%q,"uid":"u-%s"}}`, v.name, v.rv, v.name))
		if err != nil {
			t.Fatalf("ParseObject: got error %v, want none", err)
		}
		objs[v.name+"@"+v.rv] = o
	}
	at := func(ms int) time.Duration { return time.Duration(ms) * time.Millisecond }
	from := history.Location{File: "rec.yaml", Interaction: 1}
	l := &history.Log{
		Resource: history.Resource{Version: "v1", Resource: "configmaps", Kind: "ConfigMap", Namespaced: true},
		Events: []history.Event{
			{Type: history.Added, Object: objs["a@10"], At: at(1000), From: from},
			{Type: history.Modified, Object: objs["a@11"], At: at(1200), From: from},
			{Type: history.Deleted, Object: objs["a@12"], At: at(1500), From: from},
			{Type: history.Added, Object: objs["b@13"], At: at(1600), From: from},
		},
	}
	return l, objs
}

// TestFromRunServedClock checks a run's truth is on the run's clock:
//   - each event at the first LIST page or watch frame that served it, in a
//     row by which;
//   - an event never served in a row without a time;
//   - every truth mark with its recorded offset.
//
// It also checks that no delivery is placed before the serving of the
// event it delivers.
func TestFromRunServedClock(t *testing.T) {
	l, objs := servedLog(t)
	ms := func(n int) time.Duration { return time.Duration(n) * time.Millisecond }
	listThenWatch := []timeline.Serving{
		{At: ms(5), RV: "10", Items: []*history.Object{objs["a@10"]}},
		{At: ms(8), Type: history.Modified, RV: "11"},
		{At: ms(9), Type: history.Deleted, RV: "12"},
		{At: ms(20), Type: history.Modified, RV: "11"}, // served again, after a re-watch
		{At: ms(21), Type: history.Bookmark, RV: "13"},
	}
	deliveries := []timeline.Delivery{
		{At: ms(6), Op: "add", Key: "ns/a", RV: "10"},
		{At: ms(8), Op: "update", Key: "ns/a", RV: "11"},
		{At: ms(9), Op: "delete", Key: "ns/a", RV: "12"},
	}
	type place struct {
		row string
		at  time.Duration // -1: none
	}
	tests := []struct {
		name   string
		served []timeline.Serving
		logged bool
		want   map[string]place // by key@rv
	}{
		{name: "run truth - a LIST page then watch frames - each event at its first serving - pass", served: listThenWatch, logged: true,
			want: map[string]place{
				"ns/a@10": {"served first in a LIST page", ms(5)},
				"ns/a@11": {"served first in a watch frame", ms(8)},
				"ns/a@12": {"served first in a watch frame", ms(9)},
				"ns/b@13": {"never served (no run time)", -1},
			}},
		{name: "run truth - a LIST page of a later state - the change it lists at the page, the earlier one never served - pass", logged: true,
			served: []timeline.Serving{{At: ms(3), RV: "11", Items: []*history.Object{objs["a@11"]}}},
			want: map[string]place{
				"ns/a@10": {"never served (no run time)", -1},
				"ns/a@11": {"served first in a LIST page", ms(3)},
				"ns/a@12": {"never served (no run time)", -1},
				"ns/b@13": {"never served (no run time)", -1},
			}},
		{name: "run truth - a MODIFIED frame of the deletion's RV - the deletion not served - pass", logged: true,
			served: []timeline.Serving{{At: ms(4), Type: history.Modified, RV: "12"}},
			want: map[string]place{
				"ns/a@10": {"never served (no run time)", -1},
				"ns/a@11": {"never served (no run time)", -1},
				"ns/a@12": {"never served (no run time)", -1},
				"ns/b@13": {"never served (no run time)", -1},
			}},
		{name: "run truth - serving not logged - no event has a run time - pass", served: nil, logged: false,
			want: map[string]place{
				"ns/a@10": {"serving not logged (no run time)", -1},
				"ns/a@11": {"serving not logged (no run time)", -1},
				"ns/a@12": {"serving not logged (no run time)", -1},
				"ns/b@13": {"serving not logged (no run time)", -1},
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl := timeline.FromRun(timeline.Run{Truth: l, Served: tc.served, ServedLogged: tc.logged, Deliveries: deliveries})
			truth := tl.Lanes[0]
			got := map[string]place{}
			recorded := map[string]time.Duration{}
			for _, r := range truth.Rows {
				for _, m := range r.Marks {
					if m.Kind != timeline.KindEvent {
						continue
					}
					at := m.At
					if r.Untimed {
						at = -1
					}
					got[m.Key+"@"+m.RV] = place{r.Name, at}
					recorded[m.Key+"@"+m.RV] = m.Recorded
					if !r.Recorded {
						t.Errorf("row %q: got Recorded false, want the truth's rows to carry recorded offsets", r.Name)
					}
				}
			}
			for k, w := range tc.want {
				if got[k] != w {
					t.Errorf("%s: got %+v, want %+v", k, got[k], w)
				}
			}
			if len(got) != len(tc.want) {
				t.Errorf("truth events: got %d, want %d", len(got), len(tc.want))
			}
			for _, e := range l.Events {
				if k := e.Object.Key() + "@" + e.RV(); recorded[k] != e.At {
					t.Errorf("%s recorded offset: got %v, want %v", k, recorded[k], e.At)
				}
			}
		})
	}
	t.Run("run truth - a delivery is never placed before the serving of the event it delivers - pass", func(t *testing.T) {
		tl := timeline.FromRun(timeline.Run{Truth: l, Served: listThenWatch, ServedLogged: true, Deliveries: deliveries})
		servedAt := map[string]time.Duration{}
		for _, r := range tl.Lanes[0].Rows {
			for _, m := range r.Marks {
				if m.Kind == timeline.KindEvent && !r.Untimed {
					servedAt[m.Key+"@"+m.RV] = m.At
				}
			}
		}
		pairs := 0
		for _, ln := range tl.Lanes {
			for _, r := range ln.Rows {
				for _, m := range r.Marks {
					if m.Kind != timeline.KindDelivery {
						continue
					}
					at, ok := servedAt[m.Key+"@"+m.RV]
					if !ok {
						t.Errorf("delivery %s %s rv %s: got no served event placed, want its serving", m.Type, m.Key, m.RV)
						continue
					}
					pairs++
					if m.At < at {
						t.Errorf("delivery %s %s rv %s at %v: got it before its event's serving at %v, want it at or after", m.Type, m.Key, m.RV, m.At, at)
					}
				}
			}
		}
		if pairs != len(deliveries) {
			t.Errorf("deliveries paired with their served event: got %d, want %d", pairs, len(deliveries))
		}
	})
}

// TestWriteRunRecordedOffsets checks the page a run renders: its truth's
// marks carry their recorded offsets, its untimed rows say so, and a
// recording's page carries none.
func TestWriteRunRecordedOffsets(t *testing.T) {
	l, objs := servedLog(t)
	run := timeline.FromRun(timeline.Run{Truth: l, ServedLogged: true,
		Served:   []timeline.Serving{{At: 5 * time.Millisecond, RV: "10", Items: []*history.Object{objs["a@10"]}}},
		Requests: []timeline.AnsweredRequest{{Request: observe.Request{At: 5 * time.Millisecond, Verb: "LIST", Resource: "configmaps"}}}})
	rec := timeline.FromHistory(&history.History{Logs: []*history.Log{l}}, "recording")
	tests := []struct {
		name         string
		tl           *timeline.Timeline
		wantRecorded bool
		wantUntimed  int     // marks in untimed rows
		wantOffsets  float64 // sum of the marks' recorded offsets (ms; -1 each without)
	}{
		{name: "page - a run - truth marks at their recorded offsets, the rest without - pass", tl: run, wantRecorded: true,
			wantUntimed: 3, wantOffsets: 1000 + 1200 + 1500 + 1600 - 1},
		{name: "page - a recording - no recorded offsets, no untimed row - pass", tl: rec, wantRecorded: false,
			wantUntimed: 0, wantOffsets: -4},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := timeline.Write(&b, tc.tl, nil); err != nil {
				t.Fatalf("Write: got error %v, want none", err)
			}
			p := parsePage(t, b.String())
			if p.Recorded != tc.wantRecorded {
				t.Errorf("recorded axis: got %v, want %v", p.Recorded, tc.wantRecorded)
			}
			untimed, offsets := 0, 0.0
			for _, m := range p.Marks() {
				if m.Untimed {
					untimed++
				}
				offsets += m.Recorded
			}
			if untimed != tc.wantUntimed || offsets != tc.wantOffsets {
				t.Errorf("got %d untimed marks and recorded offsets summing to %v ms, want %d and %v", untimed, offsets, tc.wantUntimed, tc.wantOffsets)
			}
		})
	}
}
