package history_test

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

// rewriteHistory is ns configmaps: a@5 and b@7 at 10; 12 MODIFIED a, 14
// ADDED c, 15 DELETED b; a bookmark at 16.
func rewriteHistory(t *testing.T) *history.History {
	t.Helper()
	h, err := history.Build(file("rw.yaml",
		list("", "10", "", cm("a", "5"), cm("b", "7")),
		watch("resourceVersion=10", ev("MODIFIED", cm("a", "12")), ev("ADDED", cm("c", "14")), ev("DELETED", cm("b", "15")), bookmark("16", false)),
	))
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return h
}

// describeLog renders a log as "start | initial | events | last".
func describeLog(l *history.Log) string {
	return l.StartRV + " | " + objs(l.Initial) + " | " + events(l.Events) + " | " + l.LastRV()
}

func TestRewriteRVs(t *testing.T) {
	tests := []struct {
		name    string
		fn      func(string) string
		want    string
		numeric bool
		err     error
	}{
		{name: "rewrite - to opaque strings, order kept - pass", fn: func(rv string) string { return "v" + rv },
			want: "v10 | ns/a@v5 ns/b@v7 | MODIFIED ns/a@v12; ADDED ns/c@v14; DELETED ns/b@v15 | v16"},
		{name: "rewrite - numbers after 12 moved up by 2 - pass", numeric: true, fn: func(rv string) string {
			if n, _ := strconv.Atoi(rv); n > 12 {
				return strconv.Itoa(n + 2)
			}
			return rv
		}, want: "10 | ns/a@5 ns/b@7 | MODIFIED ns/a@12; ADDED ns/c@16; DELETED ns/b@17 | 18"},
		{name: "rewrite - two RVs made one - fail", fn: func(string) string { return "x" }, err: history.ErrRewrite},
		{name: "rewrite - numeric order reversed - fail", fn: func(rv string) string {
			n, _ := strconv.Atoi(rv)
			return strconv.Itoa(100 - n)
		}, err: history.ErrRewrite},
		{name: "rewrite - an RV made empty - fail", fn: func(string) string { return "" }, err: history.ErrRewrite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := rewriteHistory(t)
			before := describeLog(h.Logs[0])
			got, err := history.RewriteRVs(h, tt.fn)
			if !errors.Is(err, tt.err) {
				t.Fatalf("error: got %v, want %v", err, tt.err)
			}
			if after := describeLog(h.Logs[0]); after != before {
				t.Errorf("input: got %q after the rewrite, want it unchanged %q", after, before)
			}
			if err != nil {
				return
			}
			l := got.Logs[0]
			if d := describeLog(l); d != tt.want {
				t.Errorf("log: got %q, want %q", d, tt.want)
			}
			if l.Order().Numeric() != tt.numeric {
				t.Errorf("numeric: got %v, want %v", l.Order().Numeric(), tt.numeric)
			}
			for _, e := range l.Events {
				if !strings.Contains(string(e.Object.Raw), `"resourceVersion":"`+e.RV()+`"`) {
					t.Errorf("event JSON: got %s, want resourceVersion %s", e.Object.Raw, e.RV())
				}
			}
			if p := l.Events[1].Prev; p != nil {
				t.Errorf("prev of ADDED: got %s, want nil", p.ResourceVersion)
			}
			if p := l.Events[0].Prev; p == nil || p.ResourceVersion != l.Initial[0].ResourceVersion {
				t.Errorf("prev of MODIFIED: got %v, want the initial a", p)
			}
		})
	}
}

func TestReplaceEvents(t *testing.T) {
	opaque := func(t *testing.T, h *history.History) *history.History {
		o, err := history.RewriteRVs(h, func(rv string) string { return "v" + rv })
		if err != nil {
			t.Fatalf("rewrite: %v", err)
		}
		return o
	}
	deleted := func(t *testing.T, l *history.Log, rv string) history.Event {
		o, err := history.WithResourceVersion(l.Initial[0], rv)
		if err != nil {
			t.Fatalf("object: %v", err)
		}
		return history.Event{Type: history.Deleted, Object: o}
	}
	tests := []struct {
		name   string
		opaque bool
		rv     string // the inserted DELETED of a, after the first event
		swap   bool   // put the first two events in reverse order
		want   string
		pos    string // an RV and its position, "13=2"
		err    error
	}{
		{name: "replace events - numeric RV in between - pass", rv: "13",
			want: "10 | ns/a@5 ns/b@7 | MODIFIED ns/a@12; DELETED ns/a@13; ADDED ns/c@14; DELETED ns/b@15 | 16", pos: "13=2"},
		{name: "replace events - opaque RV placed before the next event - pass", opaque: true, rv: "v12.1",
			want: "v10 | ns/a@v5 ns/b@v7 | MODIFIED ns/a@v12; DELETED ns/a@v12.1; ADDED ns/c@v14; DELETED ns/b@v15 | v16", pos: "v12.1=2"},
		{name: "replace events - numeric RV out of place - fail", rv: "20", err: history.ErrRewrite},
		{name: "replace events - events out of order - fail", rv: "13", swap: true, err: history.ErrRewrite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := rewriteHistory(t)
			if tt.opaque {
				h = opaque(t, h)
			}
			l := h.Logs[0]
			evs := append([]history.Event{l.Events[0], deleted(t, l, tt.rv)}, l.Events[1:]...)
			if tt.swap {
				evs[0], evs[1] = evs[1], evs[0]
			}
			got, err := history.ReplaceEvents(h, l.Resource, evs)
			if !errors.Is(err, tt.err) {
				t.Fatalf("error: got %v, want %v", err, tt.err)
			}
			if err != nil {
				return
			}
			nl := got.Logs[0]
			if d := describeLog(nl); d != tt.want {
				t.Errorf("log: got %q, want %q", d, tt.want)
			}
			rv, want, _ := strings.Cut(tt.pos, "=")
			if p, err := nl.Position(rv); err != nil || strconv.Itoa(p) != want {
				t.Errorf("position of %s: got %d, %v, want %s", rv, p, err, want)
			}
			if p := nl.Events[1].Prev; p == nil || p.ResourceVersion != nl.Events[0].RV() {
				t.Errorf("prev of the DELETED: got %v, want the MODIFIED a", p)
			}
			if len(l.Events) != 3 {
				t.Errorf("input: got %d events, want it unchanged (3)", len(l.Events))
			}
		})
	}
	t.Run("replace events - no log of the resource - fail", func(t *testing.T) {
		h := rewriteHistory(t)
		_, err := history.ReplaceEvents(h, history.Resource{Version: "v1", Resource: "pods"}, nil)
		if !errors.Is(err, history.ErrRewrite) {
			t.Errorf("error: got %v, want %v", err, history.ErrRewrite)
		}
	})
}

func TestAddLog(t *testing.T) {
	h := rewriteHistory(t)
	pods := history.Resource{Version: "v1", Resource: "pods", Kind: "Pod", Namespaced: true}
	got, err := history.AddLog(h, pods, "20")
	if err != nil {
		t.Fatalf("AddLog: got error %v, want none", err)
	}
	l, ok := got.Log(pods)
	if !ok || l.End() != 0 || len(l.StateAt(0)) != 0 || l.LastRV() != "20" {
		t.Fatalf("added log: got %v (ok %v), want an empty log of pods at rv 20", l, ok)
	}
	if p, err := l.Position("20"); err != nil || p != 0 {
		t.Errorf("Position(20): got %d, %v, want 0, nil", p, err)
	}
	if len(got.Logs) != len(h.Logs)+1 {
		t.Errorf("logs: got %d, want %d", len(got.Logs), len(h.Logs)+1)
	}
	if _, err := history.AddLog(got, pods, "21"); !errors.Is(err, history.ErrRewrite) {
		t.Errorf("AddLog of a resource with a log: got %v, want %v", err, history.ErrRewrite)
	}
	if _, err := history.AddLog(h, pods, "r0001"); !errors.Is(err, history.ErrRewrite) {
		t.Errorf("AddLog with an opaque start in a numeric history: got %v, want %v", err, history.ErrRewrite)
	}
}
