package history_test

import (
	"math/rand/v2"
	"sort"
	"sync"
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

// replayedState renders the state of l at pos (0 ≤ pos ≤ End) computed
// afresh: the initial objects, then the events before pos applied.
func replayedState(l *history.Log, pos int) string {
	m := map[string]*history.Object{}
	for _, o := range l.Initial {
		m[o.Key()] = o
	}
	for _, e := range l.Events[:pos] {
		if e.Type == history.Deleted {
			delete(m, e.Object.Key())
		} else {
			m[e.Object.Key()] = e.Object
		}
	}
	out := make([]*history.Object, 0, len(m))
	for _, o := range m {
		out = append(out, o)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key() < out[j].Key() })
	return objs(out)
}

func TestStateAt_Concurrent(t *testing.T) {
	tests := []struct {
		name               string
		objects, events    int
		callers, perCaller int
		every              int // events between checkpoints; 0: the default
	}{
		{"generated log - 8 callers, each at 40 positions in its own order - pass", 200, 3000, 8, 40, 0},
		{"generated log - 2 callers at more positions than are remembered - pass", 50, 500, 2, 100, 0},
		{"generated log - checkpoints every 97 events - 8 callers - pass", 200, 3000, 8, 40, 97},
		{"generated log - a checkpoint every event - 4 callers - pass", 30, 300, 4, 60, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := scaleLog(t, tt.objects, tt.events) // a fresh log: nothing remembered yet
			if tt.every > 0 {
				history.SetCheckpointEvery(l, tt.every)
			}
			positions := []int{0, l.End(), l.End() / 2}
			r := rand.New(rand.NewPCG(1, 2))
			for len(positions) < tt.perCaller {
				positions = append(positions, r.IntN(l.End()+1))
			}
			want := make(map[int]string, len(positions))
			for _, p := range positions {
				want[p] = replayedState(l, p)
			}
			var wg sync.WaitGroup
			for c := range tt.callers {
				mine := append([]int(nil), positions...)
				rand.New(rand.NewPCG(uint64(c), 3)).Shuffle(len(mine), func(i, j int) { mine[i], mine[j] = mine[j], mine[i] })
				if c%2 == 1 {
					sort.Ints(mine) // one caller goes forward, as a replay does
				}
				wg.Add(1)
				go func() {
					defer wg.Done()
					for _, p := range mine {
						if got := objs(l.StateAt(p)); got != want[p] {
							t.Errorf("caller %d: StateAt(%d): got %d bytes of state, want %d (%.60s...)", c, p, len(got), len(want[p]), want[p])
						}
					}
				}()
			}
			wg.Wait()
		})
	}
}

func TestStateAt_Shared(t *testing.T) {
	tests := []struct {
		name string
		log  *history.Log
	}{
		{"shared state - hand-written log, every position - two callers' appends do not meet - pass", positionLog(t)},
		{"shared state - generated log, every position - two callers' appends do not meet - pass", scaleLog(t, 40, 200)},
	}
	x := &history.Object{Namespace: "zz", Name: "x", ResourceVersion: "98"}
	y := &history.Object{Namespace: "zz", Name: "y", ResourceVersion: "99"}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for pos := 0; pos <= tt.log.End(); pos++ {
				want := objs(tt.log.StateAt(pos))
				withX := append(tt.log.StateAt(pos), x)
				withY := append(tt.log.StateAt(pos), y)
				if got := objs(withX[len(withX)-1:]); got != "zz/x@98" {
					t.Errorf("first caller's StateAt(%d) + x: got last %q, want %q", pos, got, "zz/x@98")
				}
				if got := objs(withY[len(withY)-1:]); got != "zz/y@99" {
					t.Errorf("second caller's StateAt(%d) + y: got last %q, want %q", pos, got, "zz/y@99")
				}
				if got := objs(tt.log.StateAt(pos)); got != want {
					t.Errorf("StateAt(%d) after appends: got %q, want %q", pos, got, want)
				}
			}
		})
	}
}

func TestStateAt_Checkpoints(t *testing.T) {
	const end = 322 // the pods log of 30 objects and 600 events has 322
	tests := []struct {
		name  string
		calls []int // positions asked for, in order
		want  int   // checkpoints kept, every 97 events (the initial state is one)
	}{
		{"checkpoints - the end - 97, 194, 291 and the initial state kept - pass", []int{end}, 4},
		{"checkpoints - a position before the first - only the initial state - pass", []int{96}, 1},
		{"checkpoints - the first checkpoint's own position - saved, not a checkpoint - pass", []int{97}, 1},
		{"checkpoints - forward in steps - each passed one kept - pass", []int{50, 150, 250, end}, 4},
		{"checkpoints - back after the end - none more - pass", []int{end, 100, 10}, 4},
		{"checkpoints - the start - only the initial state - pass", []int{0}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := scaleLog(t, 30, 600)
			if l.End() != end {
				t.Fatalf("End: got %d, want %d", l.End(), end)
			}
			history.SetCheckpointEvery(l, 97)
			for _, p := range tt.calls {
				if got, want := objs(l.StateAt(p)), replayedState(l, p); got != want {
					t.Errorf("StateAt(%d): got %d bytes of state, want %d", p, len(got), len(want))
				}
			}
			if got := history.CheckpointsKept(l); got != tt.want {
				t.Errorf("checkpoints kept: got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestStateAt_LogCopy(t *testing.T) {
	tests := []struct {
		name   string
		events func(l *history.Log) []history.Event // the copy's
		pos    int
	}{
		{"log copy - its first event dropped - its own state - pass", func(l *history.Log) []history.Event { return l.Events[1:] }, 1},
		{"log copy - events cut short - its own state - pass", func(l *history.Log) []history.Event { return l.Events[:2] }, 2},
		{"log copy - the same events - the same state - pass", func(l *history.Log) []history.Event { return l.Events }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := positionLog(t)
			for p := 0; p <= l.End(); p++ {
				l.StateAt(p) // every state of the original remembered
			}
			c := *l
			c.Events = tt.events(l)
			if got, want := objs(c.StateAt(tt.pos)), replayedState(&c, tt.pos); got != want {
				t.Errorf("copy's StateAt(%d): got %q, want %q", tt.pos, got, want)
			}
			if got, want := objs(l.StateAt(tt.pos)), replayedState(l, tt.pos); got != want {
				t.Errorf("original's StateAt(%d) after the copy's: got %q, want %q", tt.pos, got, want)
			}
		})
	}
}
