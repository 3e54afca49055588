package history_test

import (
	"errors"
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

// positionLog is a numeric history: a@5 b@6 listed at 10. Then c added at
// 11, a bookmark at 12, a modified at 13, b deleted at 14, a bookmark at 20.
func positionLog(t *testing.T) *history.Log {
	t.Helper()
	h, err := history.Build(file("p.yaml",
		list("resourceVersion=0", "10", "", cm("a", "5"), cm("b", "6")),
		watch("resourceVersion=10", ev("ADDED", cm("c", "11")), bookmark("12", false),
			ev("MODIFIED", cm("a", "13")), ev("DELETED", cm("b", "14")), bookmark("20", false))))
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	return h.Logs[0]
}

// opaqueLog is a history with opaque RVs: a@p listed at L, then a
// modified at q, a bookmark at r.
func opaqueLog(t *testing.T) *history.Log {
	t.Helper()
	h, err := history.Build(file("o.yaml",
		list("resourceVersion=0", "L", "", cm("a", "p")),
		watch("resourceVersion=L", ev("MODIFIED", cm("a", "q")), bookmark("r", false))))
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	return h.Logs[0]
}

func TestLog_Position(t *testing.T) {
	num, opq := positionLog(t), opaqueLog(t)
	tests := []struct {
		name    string
		log     *history.Log
		rv      string
		want    int
		wantErr error
	}{
		{"numeric - start - pass", num, "10", 0, nil},
		{"numeric - first event - pass", num, "11", 1, nil},
		{"numeric - bookmark between events - pass", num, "12", 1, nil},
		{"numeric - modified - pass", num, "13", 2, nil},
		{"numeric - last event - pass", num, "14", 3, nil},
		{"numeric - never seen but in range - pass", num, "17", 3, nil},
		{"numeric - last bookmark - pass", num, "20", 3, nil},
		{"numeric - before start - fail", num, "5", 0, history.ErrTooOld},
		{"numeric - after last - fail", num, "21", 0, history.ErrTooLarge},
		{"numeric - not a number - fail", num, "abc", 0, history.ErrUnknownRV},
		{"numeric - empty - fail", num, "", 0, history.ErrUnknownRV},
		{"opaque - start - pass", opq, "L", 0, nil},
		{"opaque - event - pass", opq, "q", 1, nil},
		{"opaque - bookmark - pass", opq, "r", 1, nil},
		{"opaque - object RV before the list - fail", opq, "p", 0, history.ErrTooOld},
		{"opaque - never seen - fail", opq, "s", 0, history.ErrUnknownRV},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.log.Position(tt.rv)
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
				t.Fatalf("Position(%q): got error %v, want %v", tt.rv, err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("Position(%q): got %d, want %d", tt.rv, got, tt.want)
			}
		})
	}
}

func TestLog_RVAtStateAt(t *testing.T) {
	num, opq := positionLog(t), opaqueLog(t)
	tests := []struct {
		name      string
		log       *history.Log
		pos       int
		wantRV    string
		wantState string
	}{
		{"numeric - start - pass", num, 0, "10", "ns/a@5 ns/b@6"},
		{"numeric - bookmark names position 1 - pass", num, 1, "12", "ns/a@5 ns/b@6 ns/c@11"},
		{"numeric - position 2 - pass", num, 2, "13", "ns/a@13 ns/b@6 ns/c@11"},
		{"numeric - end - last bookmark - pass", num, 3, "20", "ns/a@13 ns/c@11"},
		{"numeric - negative clamps to start - pass", num, -1, "10", "ns/a@5 ns/b@6"},
		{"numeric - past the end clamps to end - pass", num, 99, "20", "ns/a@13 ns/c@11"},
		{"opaque - start - pass", opq, 0, "L", "ns/a@p"},
		{"opaque - end - bookmark - pass", opq, 1, "r", "ns/a@q"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.log.RVAt(tt.pos); got != tt.wantRV {
				t.Errorf("RVAt(%d): got %q, want %q", tt.pos, got, tt.wantRV)
			}
			if got := objs(tt.log.StateAt(tt.pos)); got != tt.wantState {
				t.Errorf("StateAt(%d): got %q, want %q", tt.pos, got, tt.wantState)
			}
		})
	}
}

func TestLog_PositionOfRVAt(t *testing.T) {
	for _, l := range []*history.Log{positionLog(t), opaqueLog(t)} {
		for pos := 0; pos <= l.End(); pos++ {
			rv := l.RVAt(pos)
			if got, err := l.Position(rv); err != nil || got != pos {
				t.Errorf("%s: Position(RVAt(%d) = %q): got %d, %v, want %d, nil", l.StartRV, pos, rv, got, err, pos)
			}
		}
	}
}

func TestOrder(t *testing.T) {
	tests := []struct {
		name        string
		log         *history.Log
		a, b        string
		wantCompare int
		wantOK      bool
	}{
		{"numeric - by value not text - pass", positionLog(t), "9", "10", -1, true},
		{"numeric - equal - pass", positionLog(t), "12", "12", 0, true},
		{"numeric - unseen numbers - pass", positionLog(t), "1000", "999", 1, true},
		{"numeric - not a number - fail", positionLog(t), "x", "10", 0, false},
		{"opaque - by appearance - pass", opaqueLog(t), "r", "q", 1, true},
		{"opaque - unseen - fail", opaqueLog(t), "s", "q", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := tt.log.Order().Compare(tt.a, tt.b)
			if c != tt.wantCompare || ok != tt.wantOK {
				t.Errorf("Compare(%q, %q): got %d, %v, want %d, %v", tt.a, tt.b, c, ok, tt.wantCompare, tt.wantOK)
			}
			if got, want := tt.log.Order().Less(tt.a, tt.b), tt.wantOK && tt.wantCompare < 0; got != want {
				t.Errorf("Less(%q, %q): got %v, want %v", tt.a, tt.b, got, want)
			}
		})
	}
}

// TestEventByActor tells the events of an actor's writes from the
// target's and the recorded ones.
func TestEventByActor(t *testing.T) {
	tests := []struct {
		name       string
		file       string
		wantActor  string
		wantOK     bool
		wantTarget bool
	}{
		{name: "by actor - an actor's write - named - pass", file: history.ActorWrite("kubelet"), wantActor: "kubelet", wantOK: true},
		{name: "by actor - the target's write - none - pass", file: history.TargetWrite, wantTarget: true},
		{name: "by actor - a recorded event - none - pass", file: "cassette.yaml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := history.Event{From: history.Location{File: tc.file}}
			name, ok := e.ByActor()
			if name != tc.wantActor || ok != tc.wantOK || e.ByTarget() != tc.wantTarget {
				t.Errorf("got ByActor %q %v, ByTarget %v, want %q %v, %v", name, ok, e.ByTarget(), tc.wantActor, tc.wantOK, tc.wantTarget)
			}
		})
	}
}
