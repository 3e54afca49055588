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
	}{
		{"generated log - 8 callers, each at 40 positions in its own order - pass", 200, 3000, 8, 40},
		{"generated log - 2 callers at more positions than are remembered - pass", 50, 500, 2, 100},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := scaleLog(t, tt.objects, tt.events) // a fresh log: nothing remembered yet
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
