package history_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

// event returns an event of typ of the configmap name at rv (cm's JSON).
func event(t testing.TB, typ history.EventType, name, rv string) history.Event {
	t.Helper()
	o, _, _, err := history.ParseObject([]byte(cm(name, rv)))
	if err != nil {
		t.Fatalf("ParseObject: got error %v, want none", err)
	}
	return history.Event{Type: typ, Object: o}
}

// prevKeys renders each event's Prev as "ns/a@5", or "-" for none.
func prevKeys(es []history.Event) string {
	out := ""
	for _, e := range es {
		if e.Prev == nil {
			out += "- "
			continue
		}
		out += e.Prev.Key() + "@" + e.Prev.ResourceVersion + " "
	}
	return out
}

// logDiffs returns how got differs from want, a log made afresh with the
// same events. It compares the rendering, the events' Prev, the RV and
// state at each position, and the position of each RV. It compares
// ObjectAt of each key at each position against StateAt's.
func logDiffs(got, want *history.Log) []string {
	var diffs []string
	add := func(what, g, w string) {
		if g != w {
			diffs = append(diffs, fmt.Sprintf("%s: got %q, want %q", what, g, w))
		}
	}
	add("log", describeLog(got), describeLog(want))
	add("prev", prevKeys(got.Events), prevKeys(want.Events))
	add("numeric", strconv.FormatBool(got.Order().Numeric()), strconv.FormatBool(want.Order().Numeric()))
	if got.End() != want.End() {
		return diffs
	}
	keys := map[string]bool{"ns/none": true}
	for _, o := range want.Initial {
		keys[o.Key()] = true
	}
	for _, e := range want.Events {
		keys[e.Object.Key()] = true
	}
	for p := 0; p <= want.End(); p++ {
		add(fmt.Sprintf("RVAt(%d)", p), got.RVAt(p), want.RVAt(p))
		add(fmt.Sprintf("StateAt(%d)", p), objs(got.StateAt(p)), objs(want.StateAt(p)))
		state := map[string]*history.Object{}
		for _, o := range want.StateAt(p) {
			state[o.Key()] = o
		}
		for k := range keys {
			o, ok := got.ObjectAt(k, p)
			w := state[k]
			if ok != (w != nil) || (ok && o.ResourceVersion != w.ResourceVersion) {
				diffs = append(diffs, fmt.Sprintf("ObjectAt(%s, %d): got %v %v, want %v", k, p, o, ok, w))
			}
		}
	}
	for _, e := range want.Events {
		gp, gerr := got.Position(e.RV())
		wp, werr := want.Position(e.RV())
		add("Position("+e.RV()+")", fmt.Sprint(gp, gerr), fmt.Sprint(wp, werr))
	}
	return diffs
}

// reference is h's log of r with evs after its events, made by
// ReplaceEvents.
func reference(t testing.TB, h *history.History, r history.Resource, evs []history.Event) *history.Log {
	t.Helper()
	l, _ := h.Log(r)
	want, err := history.ReplaceEvents(h, r, append(slices.Clip(l.Events), evs...))
	if err != nil {
		t.Fatalf("ReplaceEvents: got error %v, want none", err)
	}
	wl, _ := want.Log(r)
	return wl
}

func TestAppendEvents(t *testing.T) {
	tests := []struct {
		name   string
		opaque bool
		evs    [][3]string // type, name, rv
		err    error
	}{
		{name: "append events - an ADDED after the bookmark - pass", evs: [][3]string{{"ADDED", "d", "17"}}},
		{name: "append events - MODIFIED then DELETED of a listed object - pass",
			evs: [][3]string{{"MODIFIED", "a", "20"}, {"DELETED", "a", "21"}}},
		{name: "append events - a deleted object added again - pass", evs: [][3]string{{"ADDED", "b", "17"}}},
		{name: "append events - the RV of the bookmark - rebuilt as ReplaceEvents - pass", evs: [][3]string{{"ADDED", "d", "16"}}},
		{name: "append events - opaque RVs - rebuilt as ReplaceEvents - pass", opaque: true, evs: [][3]string{{"ADDED", "d", "w1"}}},
		{name: "append events - an RV before the last event - fail", evs: [][3]string{{"ADDED", "d", "13"}}, err: history.ErrRewrite},
		{name: "append events - the same RV twice - fail", evs: [][3]string{{"ADDED", "d", "17"}, {"ADDED", "e", "17"}}, err: history.ErrRewrite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := rewriteHistory(t)
			if tt.opaque {
				var err error
				if h, err = history.RewriteRVs(h, func(rv string) string { return "v" + rv }); err != nil {
					t.Fatalf("RewriteRVs: got error %v, want none", err)
				}
			}
			l := h.Logs[0]
			before := describeLog(l) + " / " + prevKeys(l.Events)
			var evs []history.Event
			for _, e := range tt.evs {
				evs = append(evs, event(t, history.EventType(e[0]), e[1], e[2]))
			}
			got, err := history.AppendEvents(h, l.Resource, evs...)
			if !errors.Is(err, tt.err) {
				t.Fatalf("error: got %v, want %v", err, tt.err)
			}
			if after := describeLog(l) + " / " + prevKeys(l.Events); after != before {
				t.Errorf("input: got %q after the append, want it unchanged %q", after, before)
			}
			if err != nil {
				return
			}
			for _, d := range logDiffs(got.Logs[0], reference(t, h, l.Resource, evs)) {
				t.Error(d)
			}
		})
	}
	t.Run("append events - an event without an object - fail", func(t *testing.T) {
		h := rewriteHistory(t)
		_, err := history.AppendEvents(h, h.Logs[0].Resource, history.Event{Type: history.Added})
		if !errors.Is(err, history.ErrRewrite) {
			t.Errorf("error: got %v, want %v", err, history.ErrRewrite)
		}
	})
	t.Run("append events - no log of the resource - fail", func(t *testing.T) {
		h := rewriteHistory(t)
		_, err := history.AppendEvents(h, history.Resource{Version: "v1", Resource: "pods"}, event(t, history.Added, "d", "17"))
		if !errors.Is(err, history.ErrRewrite) {
			t.Errorf("error: got %v, want %v", err, history.ErrRewrite)
		}
	})
}

// TestAppendEvents_Shares checks what an append shares with the history
// it came from. That is the other logs, the log's Initial and Marks, the
// events' array once the log has been appended to, and the states
// computed.
func TestAppendEvents_Shares(t *testing.T) {
	h := testutil.SynthHistory(t, 40, 60)
	if len(h.Logs) < 2 {
		t.Fatalf("logs: got %d, want 2", len(h.Logs))
	}
	l := h.Logs[0]
	next := func(h *history.History, name string) *history.History {
		t.Helper()
		v, _ := strconv.ParseUint(h.Logs[0].LastRV(), 10, 64)
		o, _, _, err := history.ParseObject(fmt.Appendf(nil, `{"metadata":{"name":%q,"namespace":"default","resourceVersion":"%d"}}`, name, v+1))
		if err != nil {
			t.Fatalf("ParseObject: got error %v, want none", err)
		}
		out, err := history.AppendEvents(h, h.Logs[0].Resource, history.Event{Type: history.Added, Object: o})
		if err != nil {
			t.Fatalf("AppendEvents: got error %v, want none", err)
		}
		return out
	}
	state := l.StateAt(l.End())
	h1 := next(h, "w-1")
	h2 := next(h1, "w-2")
	tests := []struct {
		name string
		ok   bool
	}{
		{"shares - the other log is the same *Log - pass", h2.Logs[1] == h.Logs[1]},
		{"shares - the log's Initial - pass", &h2.Logs[0].Initial[0] == &l.Initial[0]},
		{"shares - the log's Marks - pass", &h2.Logs[0].Marks[0] == &l.Marks[0]},
		{"shares - the order of the history - pass", h2.Order() == h.Order()},
		{"shares - the second append extends the first's events in place - pass", &h2.Logs[0].Events[0] == &h1.Logs[0].Events[0]},
		{"shares - a state the log computed - pass", &h2.Logs[0].StateAt(l.End())[0] == &state[0]},
		{"shares - the events a version holds are clipped (an append to them copies) - pass", cap(h1.Logs[0].Events) == len(h1.Logs[0].Events)},
		{"shares - the log itself is new - pass", h2.Logs[0] != l && h1.Logs[0] != l},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !tt.ok {
				t.Errorf("got not shared, want shared")
			}
		})
	}
}

// version is one history of TestAppendEvents_Derived and the events
// appended to the first one to make it.
type version struct {
	h   *history.History
	evs []history.Event
}

// TestAppendEvents_Derived appends to histories derived from one another,
// in a random order. It makes several appends to one history (whose
// arrays the first extended in place), and appends to the newest and to
// older ones. Readers of every version run meanwhile. It checks each
// version against its log made afresh: none corrupts another.
func TestAppendEvents_Derived(t *testing.T) {
	tests := []struct {
		name         string
		objects, evs int // of a generated start; 0: rewriteHistory
		steps, seed  uint64
		newestOnly   bool
		readers      int
	}{
		{name: "derived - appends to the newest only - pass", objects: 30, evs: 40, steps: 60, seed: 1, newestOnly: true, readers: 2},
		{name: "derived - appends to any version - pass", objects: 30, evs: 40, steps: 60, seed: 2, readers: 2},
		{name: "derived - appends to any version of a hand-written start - pass", steps: 40, seed: 3, readers: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h0 := rewriteHistory(t)
			if tt.objects > 0 {
				h0 = testutil.SynthHistory(t, tt.objects, tt.evs)
			}
			r := h0.Logs[0].Resource
			rng := rand.New(rand.NewPCG(tt.seed, 7))
			versions := []version{{h: h0}}
			stop := make(chan struct{})
			var wg sync.WaitGroup
			var mu sync.Mutex
			for k := range tt.readers {
				rng := rand.New(rand.NewPCG(tt.seed, uint64(k)))
				wg.Go(func() {
					for {
						select {
						case <-stop:
							return
						default:
						}
						mu.Lock()
						v := versions[rng.IntN(len(versions))]
						mu.Unlock()
						l := v.h.Logs[0]
						p := l.End()
						for _, o := range l.StateAt(p) {
							if got, ok := l.ObjectAt(o.Key(), p); !ok || got != o {
								t.Errorf("reader: ObjectAt(%s, %d): got %v %v, want %v", o.Key(), p, got, ok, o)
								return
							}
						}
					}
				})
			}
			for step := range tt.steps {
				mu.Lock()
				from := versions[len(versions)-1]
				if !tt.newestOnly {
					from = versions[rng.IntN(len(versions))]
				}
				mu.Unlock()
				l := from.h.Logs[0]
				v, _ := strconv.ParseUint(l.LastRV(), 10, 64)
				e := randomEvent(t, rng, l, v+1+rng.Uint64N(3), step)
				h, err := history.AppendEvents(from.h, r, e)
				if err != nil {
					t.Fatalf("step %d: AppendEvents: got error %v, want none", step, err)
				}
				mu.Lock()
				versions = append(versions, version{h: h, evs: append(slices.Clip(from.evs), e)})
				mu.Unlock()
			}
			close(stop)
			wg.Wait()
			for i, v := range versions {
				for _, d := range logDiffs(v.h.Logs[0], reference(t, h0, r, v.evs)) {
					t.Errorf("version %d: %s", i, d)
				}
			}
		})
	}
}

// randomEvent returns an event after l's end at rv: an ADDED of a new
// object, or a MODIFIED or DELETED of one in l's final state.
func randomEvent(t testing.TB, rng *rand.Rand, l *history.Log, rv uint64, step uint64) history.Event {
	t.Helper()
	state := l.StateAt(l.End())
	typ, name, ns := history.Added, fmt.Sprintf("new-%d", step), "ns"
	if len(l.Initial) > 0 {
		ns = l.Initial[0].Namespace
	}
	if len(state) > 0 && rng.IntN(3) > 0 {
		o := state[rng.IntN(len(state))]
		typ, name, ns = history.Modified, o.Name, o.Namespace
		if rng.IntN(2) == 0 {
			typ = history.Deleted
		}
	}
	o, _, _, err := history.ParseObject(fmt.Appendf(nil, `{"metadata":{"name":%q,"namespace":%q,"resourceVersion":"%d"}}`, name, ns, rv))
	if err != nil {
		t.Fatalf("ParseObject: got error %v, want none", err)
	}
	return history.Event{Type: typ, Object: o}
}

func TestObjectAt(t *testing.T) {
	tests := []struct {
		name string
		log  func(l *history.Log) *history.Log
	}{
		{"object at - a built log (its key index) - pass", func(l *history.Log) *history.Log { return l }},
		{"object at - a copy given other events (a scan) - pass", func(l *history.Log) *history.Log {
			c := *l
			c.Events = l.Events[:2]
			return &c
		}},
		{"object at - a log not made by the package (a scan) - pass", func(l *history.Log) *history.Log {
			return &history.Log{Resource: l.Resource, StartRV: l.StartRV, Initial: l.Initial, Events: l.Events}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := tt.log(positionLog(t))
			for p := -1; p <= l.End()+1; p++ {
				want := map[string]string{"ns/none": ""} // key -> RV at p; "": none
				for _, o := range l.Initial {
					want[o.Key()] = o.ResourceVersion
				}
				for _, e := range l.Events[:max(0, min(p, l.End()))] {
					want[e.Object.Key()] = e.RV()
					if e.Type == history.Deleted {
						want[e.Object.Key()] = ""
					}
				}
				for k, w := range want {
					got := ""
					if o, ok := l.ObjectAt(k, p); ok {
						got = o.ResourceVersion
					}
					if got != w {
						t.Errorf("ObjectAt(%s, %d): got %q, want %q", k, p, got, w)
					}
				}
			}
		})
	}
}
