package faults

import "testing"

// must parses a plan's text form or fails the test.
func must(t *testing.T, text string) Plan {
	t.Helper()
	p, err := ParseText(text)
	if err != nil {
		t.Fatalf("ParseText(%q): got error %v, want none", text, err)
	}
	return p
}

func TestMatch(t *testing.T) {
	list := func(idx, req, page int) Point { return Point{Index: idx, Kind: ListPoint, Request: req, Page: page} }
	watch := func(idx, req int) Point { return Point{Index: idx, Kind: WatchPoint, Request: req} }
	frame := func(idx, req, n int) Point { return Point{Index: idx, Kind: FramePoint, Request: req, Frame: n} }
	tests := []struct {
		name string
		plan string
		pt   Point
		want string // the matching decision's text form; "" for no match
	}{
		{"at - point index and kind fit - pass", "close-watch:after=5,at=3", watch(3, 2), "close-watch:after=5,at=3"},
		{"at - other index - fail", "close-watch:after=5,at=3", watch(4, 2), ""},
		{"at - kind does not fit - fail", "close-watch:at=3", frame(3, 1, 1), ""},
		{"at - request fault at a LIST - pass", "http-error:code=503,at=0", list(0, 1, 1), "http-error:code=503,at=0"},
		{"at - request fault at a WATCH - pass", "http-error:at=7", watch(7, 1), "http-error:code=429,at=7"},
		{"at - request fault at a frame - fail", "http-error:at=7", frame(7, 1, 1), ""},
		{"every - no where-parameters - pass", "drop-event", frame(12, 3, 9), "drop-event"},
		{"every - no where-parameters, other kind - fail", "drop-event", watch(12, 3), ""},
		{"every - plan fault never at a point - fail", "opaque-rv", list(0, 1, 1), ""},
		{"every - plan fault with at - fail", "opaque-rv:at=0", list(0, 1, 1), ""},
		{"page - selected page - pass", "expire-continue:page=2", list(5, 4, 2), "expire-continue:page=2"},
		{"page - other page - fail", "expire-continue:page=2", list(5, 4, 3), ""},
		{"list - selected request - pass", "http-error:code=503,list=1", list(0, 1, 1), "http-error:code=503,list=1"},
		{"list - other request - fail", "http-error:code=503,list=1", list(1, 2, 1), ""},
		{"list - a WATCH with that ordinal - fail", "http-error:code=503,list=1", watch(1, 1), ""},
		{"list and page - both fit - pass", "too-large-rv:list=3,page=2", list(4, 3, 2), "too-large-rv:list=3,page=2"},
		{"list and page - page differs - fail", "too-large-rv:list=3,page=2", list(4, 3, 1), ""},
		{"watch - selected watch request - pass", "http-error:watch=2", watch(9, 2), "http-error:code=429,watch=2"},
		{"watch - a LIST with that ordinal - fail", "http-error:watch=2", list(9, 2, 1), ""},
		{"watch - frame of the selected watch - pass", "delay:ms=2500,watch=2", frame(9, 2, 4), "delay:ms=2500,watch=2"},
		{"watch - frame of another watch - fail", "delay:ms=2500,watch=2", frame(9, 1, 4), ""},
		{"frame - selected frame - pass", "reset:frame=4", frame(9, 1, 4), "reset:frame=4"},
		{"frame - other frame - fail", "reset:frame=4", frame(9, 1, 5), ""},
		{"watch and frame - both fit - pass", "duplicate:watch=2,frame=4", frame(9, 2, 4), "duplicate:watch=2,frame=4"},
		{"watch and frame - watch differs - fail", "duplicate:watch=2,frame=4", frame(9, 3, 4), ""},
		{"first - first applicable wins - pass", "close-watch:after=1,watch=5 close-watch:after=2 expire-watch", watch(0, 1), "close-watch:after=2"},
		{"first - at before every - pass", "close-watch:after=1,at=0 close-watch:after=2", watch(0, 1), "close-watch:after=1,at=0"},
		{"empty plan - nothing - fail", "", list(0, 1, 1), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, ok := must(t, tt.plan).Match(tt.pt)
			got := ""
			if ok {
				got = d.String()
			}
			if got != tt.want {
				t.Errorf("Match(%+v) in %q: got %q (ok %v), want %q", tt.pt, tt.plan, got, ok, tt.want)
			}
		})
	}
}

func TestMatchGoValues(t *testing.T) {
	tests := []struct {
		name   string
		d      Decision
		pt     Point
		wantOK bool
	}{
		{"go value - unknown fault - fail", Decision{Fault: "nope", At: 0}, Point{Kind: ListPoint}, false},
		{"go value - At below -1 - fail", Decision{Fault: "drop-event", At: -2}, Point{Kind: FramePoint}, false},
		{"go value - 0 where-parameter means any - pass", Decision{Fault: "drop-event", At: -1, Params: map[string]int{"watch": 0}}, Point{Kind: FramePoint, Request: 3}, true},
		{"go value - zero Decision At 0 at point 0 - pass", Decision{Fault: "drop-event"}, Point{Kind: FramePoint}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Applies(tt.pt); got != tt.wantOK {
				t.Errorf("Applies(%+v) for %+v: got %v, want %v", tt.pt, tt.d, got, tt.wantOK)
			}
			_, ok := Plan{Decisions: []Decision{tt.d}}.Match(tt.pt)
			if ok != tt.wantOK {
				t.Errorf("Match(%+v) for %+v: got %v, want %v", tt.pt, tt.d, ok, tt.wantOK)
			}
		})
	}
}

func TestParam(t *testing.T) {
	tests := []struct {
		name  string
		d     Decision
		param string
		want  int
	}{
		{"param - given - pass", Decision{Fault: "close-watch", Params: map[string]int{"after": 7}}, "after", 7},
		{"param - default from Values - pass", Decision{Fault: "delay"}, "ms", 100},
		{"param - absent where-parameter - pass", Decision{Fault: "delay"}, "watch", 0},
		{"param - unknown fault - pass", Decision{Fault: "nope"}, "after", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.d.Param(tt.param); got != tt.want {
				t.Errorf("Param(%q): got %d, want %d", tt.param, got, tt.want)
			}
		})
	}
}

func TestHasOnly(t *testing.T) {
	p := Plan{Decisions: []Decision{
		{Fault: "opaque-rv", At: -1},
		{Fault: "reorder", At: 4},
		{Fault: "close-watch", At: 2},
		{Fault: "nope", At: 1},
	}}
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"has - named fault - pass", boolString(p.Has("opaque-rv")), "true"},
		{"has - absent fault - fail", boolString(p.Has("reset")), "false"},
		{"only - legal - pass", p.Only(Legal).String(), "opaque-rv close-watch:after=0,at=2"},
		{"only - breaking - pass", p.Only(Breaking).String(), "reorder:at=4"},
		{"only - empty plan - pass", Plan{}.Only(Legal).String(), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %q, want %q", tt.got, tt.want)
			}
		})
	}
}

func boolString(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

func TestPointString(t *testing.T) {
	tests := []struct {
		name string
		pt   Point
		want string
	}{
		{"point - first LIST page - pass", Point{Kind: ListPoint, Request: 1, Page: 1}, "LIST #1"},
		{"point - continue page - pass", Point{Kind: ListPoint, Request: 3, Page: 2}, "LIST #3 page 2"},
		{"point - watch - pass", Point{Kind: WatchPoint, Request: 2}, "watch #2"},
		{"point - frame - pass", Point{Kind: FramePoint, Request: 2, Frame: 7}, "watch #2 frame 7"},
		{"point - bookmark frame - pass", Point{Kind: FramePoint, Request: 2, Frame: 8, Bookmark: true}, "watch #2 frame 8 (BOOKMARK)"},
		{"point - unknown ordinal - pass", Point{Kind: WatchPoint}, "watch"},
		{"point - other kind - pass", Point{Index: 4, Kind: PlanPoint}, "point 4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.pt.String(); got != tt.want {
				t.Errorf("String(): got %q, want %q", got, tt.want)
			}
		})
	}
}
