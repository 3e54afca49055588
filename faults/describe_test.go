package faults

import "testing"

func TestDescribe(t *testing.T) {
	tests := []struct {
		name string
		plan Plan
		want string
	}{
		{"describe - empty - pass", Plan{}, "no faults"},
		{"describe - brief example - pass", must(t, "close-watch:after=5,at=3 expire-continue:page=2"),
			"at point 3: close the watch after 5 events; every LIST page 2: answer 410 Expired"},
		{"describe - singular and zero counts - pass", must(t, "close-watch:after=1,at=0 close-watch:at=1 expire-watch:after=3 expire-watch"),
			"at point 0: close the watch after 1 event; at point 1: close the watch before any event; every watch: send a 410 Expired ERROR after 3 events; every watch: answer 410 Expired at open"},
		{"describe - request fault selections - pass", must(t, "http-error:code=503,list=1 http-error:watch=2 http-error:code=500 http-error:list=2,page=3"),
			"LIST #1: answer HTTP 503; watch #2: answer HTTP 429; every LIST and watch: answer HTTP 500; LIST #2 if it is page 3: answer HTTP 429"},
		{"describe - frame selections - pass", must(t, "delay:ms=2500,watch=2,frame=5 reset:watch=1 drop-event:frame=4 reorder"),
			"frame 5 of watch #2: pause 2500 ms; every frame of watch #1: cut the connection mid-frame; frame 4 of every watch: drop the event; every frame: swap the next two events"},
		{"describe - list faults - pass", must(t, "stale-list:back=10 too-large-rv:list=1"),
			`every LIST: serve a LIST at resourceVersion "0" from a snapshot 10 events old; LIST #1: answer 504 Timeout, ResourceVersionTooLarge`},
		{"describe - plan fault and watch fault - pass", must(t, "opaque-rv recreate:object=7,watch=3"),
			"throughout: rewrite every resourceVersion to an opaque string; watch #3: delete and recreate object 7 (key order) under a new UID while the client is away"},
		{"describe - unknown fault - pass", Plan{Decisions: []Decision{{Fault: "nope", At: 2}}}, `unknown fault "nope" (never fires)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Describe(tt.plan); got != tt.want {
				t.Errorf("Describe:\ngot  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestStory(t *testing.T) {
	tests := []struct {
		name  string
		fired []Firing
		want  string
	}{
		{"story - nothing fired - pass", nil, "no fault fired"},
		{"story - brief example - pass", []Firing{
			{Point: Point{Index: 7, Kind: WatchPoint, Request: 2}, Fault: "close-watch", Detail: "after event 5, rv 140"},
			{Point: Point{Index: 9, Kind: ListPoint, Request: 3, Page: 2}, Fault: "expire-continue"},
			{Point: Point{Index: 12, Kind: FramePoint, Request: 1, Frame: 7, Bookmark: true}, Fault: "drop-bookmark", Detail: "rv 83"},
		}, "watch #2 closed (after event 5, rv 140); LIST #3 page 2 answered 410 Expired; watch #1 frame 7 (BOOKMARK) dropped (rv 83)"},
		{"story - point before the phrase - pass", []Firing{
			{Point: Point{Kind: FramePoint, Request: 2, Frame: 3}, Fault: "bookmark-regress", Detail: "rv 12"},
			{Point: Point{Kind: WatchPoint, Request: 4}, Fault: "recreate", Detail: "default/cm-1"},
		}, "older BOOKMARK inserted before watch #2 frame 3 (rv 12); object recreated before watch #4 (default/cm-1)"},
		{"story - plan fault without a point - pass", []Firing{{Fault: "opaque-rv"}}, "every resourceVersion rewritten to an opaque string"},
		{"story - request fault - pass", []Firing{{Point: Point{Kind: ListPoint, Request: 1, Page: 1}, Fault: "http-error", Detail: "503"}},
			"LIST #1 answered an HTTP error (503)"},
		{"story - unknown fault - pass", []Firing{{Point: Point{Kind: WatchPoint, Request: 1}, Fault: "nope", Detail: "x"}}, "watch #1: nope (x)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Story(tt.fired); got != tt.want {
				t.Errorf("Story:\ngot  %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestStoryEveryFault(t *testing.T) {
	for _, f := range Registry {
		t.Run(f.Name+" - story and description - pass", func(t *testing.T) {
			pt := Point{Index: 4, Kind: FramePoint, Request: 2, Frame: 9}
			got := Story([]Firing{{Point: pt, Fault: f.Name}})
			if got == "" || got == "no fault fired" || got == pt.String()+": "+f.Name {
				t.Errorf("Story: got %q, want the fault's own phrase", got)
			}
			d := Describe(Plan{Decisions: []Decision{{Fault: f.Name, At: 4}}})
			want := "at point 4: "
			if f.Point == WritePoint {
				want = "write #5: " // write points are numbered on their own
			}
			if len(d) <= len(want) || d[:len(want)] != want || d[len(want):] == f.Doc {
				t.Errorf("Describe: got %q, want %q and the fault's own phrase", d, want)
			}
		})
	}
}
