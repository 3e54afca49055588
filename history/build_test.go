package history_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// synthFile returns the cassette of a builder history: a, b, c listed at
// 1003, then a modified (1004), b deleted (1005), d added (1006).
func synthFile(t testing.TB, o synth.CassetteOptions) *cassette.File {
	t.Helper()
	b := synth.NewBuilder()
	cms := map[string]*corev1.ConfigMap{}
	for _, n := range []string{"a", "b", "c", "d"} {
		cms[n] = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: n}, Data: map[string]string{"k": "v"}}
	}
	b.Add(cms["a"])
	b.Add(cms["b"])
	b.Add(cms["c"])
	b.Snapshot()
	cms["a"].Data["k"] = "v2"
	b.Update(cms["a"])
	b.Delete(cms["b"])
	b.Add(cms["d"])
	f, err := b.Cassette(o)
	if err != nil {
		t.Fatalf("synth cassette: got error %v, want none", err)
	}
	f.Path = "synth.yaml"
	return f
}

func TestBuild(t *testing.T) {
	const wl = "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true"
	tests := []struct {
		name        string
		files       []*cassette.File
		wantStart   string
		wantInitial string
		wantEvents  string
		wantLast    string
		wantLists   int
		wantWatches int
	}{
		{"synth - one list and a watch - pass",
			[]*cassette.File{synthFile(t, synth.CassetteOptions{})},
			"1003", "ns/a@1001 ns/b@1002 ns/c@1003", "MODIFIED ns/a@1004; DELETED ns/b@1005; ADDED ns/d@1006", "1006", 1, 1},
		{"synth - paginated list and bookmarks - pass",
			[]*cassette.File{synthFile(t, synth.CassetteOptions{PageSize: 2, BookmarkEvery: 1})},
			"1003", "ns/a@1001 ns/b@1002 ns/c@1003", "MODIFIED ns/a@1004; DELETED ns/b@1005; ADDED ns/d@1006", "1006", 2, 1},
		{"hand - paginated list chain - pass",
			[]*cassette.File{file("p.yaml",
				list("limit=1&resourceVersion=0", "10", "tok1", cm("a", "5")),
				list("limit=1&continue=tok1", "10", "tok2", cm("b", "7")),
				list("limit=1&continue=tok2", "10", "", cm("c", "9")),
				watch("resourceVersion=10", ev("ADDED", cm("d", "11"))))},
			"10", "ns/a@5 ns/b@7 ns/c@9", "ADDED ns/d@11", "11", 3, 1},
		{"hand - WatchList initial events - pass",
			[]*cassette.File{file("wl.yaml",
				watch(wl, ev("ADDED", cm("b", "7")), ev("ADDED", cm("a", "5")), bookmark("8", false), bookmark("9", true),
					ev("MODIFIED", cm("a", "10")), bookmark("12", false)))},
			"9", "ns/a@5 ns/b@7", "MODIFIED ns/a@10", "12", 0, 1},
		{"hand - WatchList cut before initial-events-end then list - pass",
			[]*cassette.File{file("wl.yaml",
				watch(wl, ev("ADDED", cm("a", "5"))),
				list("resourceVersion=0", "10", "", cm("a", "5"), cm("b", "7")))},
			"10", "ns/a@5 ns/b@7", "", "10", 1, 1},
		{"hand - overlapping watches - repeats skipped - pass",
			[]*cassette.File{file("o.yaml",
				list("resourceVersion=0", "10", "", cm("a", "5"), cm("b", "6")),
				watch("resourceVersion=10", ev("ADDED", cm("c", "11")), ev("MODIFIED", cm("a", "12"))),
				watch("resourceVersion=11", ev("MODIFIED", cm("a", "12")), ev("DELETED", cm("b", "13"))),
				watch("resourceVersion=10", ev("ADDED", cm("c", "11")), ev("MODIFIED", cm("a", "12")), ev("DELETED", cm("b", "13")), ev("MODIFIED", cm("c", "14"))))},
			"10", "ns/a@5 ns/b@6", "ADDED ns/c@11; MODIFIED ns/a@12; DELETED ns/b@13; MODIFIED ns/c@14", "14", 1, 3},
		{"hand - relist after a gap - inferred events - pass",
			[]*cassette.File{file("g.yaml",
				list("resourceVersion=0", "10", "", cm("a", "5"), cm("b", "6"), cm("c", "7")),
				watch("resourceVersion=10", ev("MODIFIED", cm("c", "11")), `{"type":"ERROR","object":{"kind":"Status","code":410,"reason":"Expired"}}`),
				list("resourceVersion=11", "20", "", cm("a", "15"), cm("c", "11"), cm("d", "18")))},
			"10", "ns/a@5 ns/b@6 ns/c@7", "MODIFIED ns/c@11; MODIFIED ns/a@15; ADDED ns/d@18; DELETED ns/b@20", "20", 2, 1},
		{"hand - relist after a gap - recreated with a new UID - pass",
			[]*cassette.File{file("u.yaml",
				list("resourceVersion=0", "10", "", cm("a", "5")),
				list("resourceVersion=0", "20", "", cmUID("a", "15", "uid-a2")))},
			"10", "ns/a@5", "DELETED ns/a@15; ADDED ns/a@15", "20", 2, 0},
		{"hand - relist older than known - ignored - pass",
			[]*cassette.File{file("s.yaml",
				list("resourceVersion=0", "10", "", cm("a", "5")),
				watch("resourceVersion=10", ev("MODIFIED", cm("a", "11"))),
				list("resourceVersion=0", "10", "", cm("a", "5")))},
			"10", "ns/a@5", "MODIFIED ns/a@11", "11", 2, 1},
		{"hand - opaque resourceVersions - appearance order - pass",
			[]*cassette.File{file("x.yaml",
				list("resourceVersion=0", "list-A", "", cm("a", "obj-Q"), cm("b", "obj-P")),
				watch("resourceVersion=list-A", ev("MODIFIED", cm("b", "ev-Z")), ev("ADDED", cm("c", "ev-Y")), bookmark("bm-X", false)))},
			"list-A", "ns/a@obj-Q ns/b@obj-P", "MODIFIED ns/b@ev-Z; ADDED ns/c@ev-Y", "bm-X", 1, 1},
		{"hand - bookmark past the newest object - pass",
			[]*cassette.File{file("b.yaml",
				list("resourceVersion=0", "10", "", cm("a", "5")),
				watch("resourceVersion=10", bookmark("15", false), ev("ADDED", cm("b", "20")), bookmark("30", false)))},
			"10", "ns/a@5", "ADDED ns/b@20", "30", 1, 1},
		{"hand - list RV past the newest object - pass",
			[]*cassette.File{file("l.yaml", list("resourceVersion=0", "99", "", cm("a", "5")))},
			"99", "ns/a@5", "", "99", 1, 0},
		{"hand - watch from 0 - out-of-order synthetic ADDEDs - pass",
			[]*cassette.File{file("z.yaml",
				watch("resourceVersion=0", ev("ADDED", cm("a", "9")), ev("ADDED", cm("b", "5")), ev("ADDED", cm("c", "7")), ev("MODIFIED", cm("b", "12"))))},
			"9", "ns/a@9 ns/b@5 ns/c@7", "MODIFIED ns/b@12", "12", 0, 1},
		{"hand - re-watch from 0 after a list - synthetic ADDEDs merged - pass",
			[]*cassette.File{file("z.yaml",
				list("resourceVersion=0", "10", "", cm("a", "5"), cm("b", "6")),
				watch("resourceVersion=0", ev("ADDED", cm("a", "11")), ev("ADDED", cm("b", "6")), ev("ADDED", cm("c", "12")), ev("MODIFIED", cm("b", "13"))))},
			"10", "ns/a@5 ns/b@6", "MODIFIED ns/a@11; ADDED ns/c@12; MODIFIED ns/b@13", "13", 1, 1},
		{"hand - re-watch from 0 cut short - ignored - pass",
			[]*cassette.File{file("z.yaml",
				list("resourceVersion=0", "10", "", cm("a", "5"), cm("b", "6")),
				watch("resourceVersion=0", ev("ADDED", cm("a", "11"))))},
			"10", "ns/a@5 ns/b@6", "", "10", 1, 1},
		{"hand - watch first from an RV - empty start - pass",
			[]*cassette.File{file("w.yaml",
				watch("resourceVersion=40", ev("ADDED", cm("a", "41")), bookmark("45", false)))},
			"40", "", "ADDED ns/a@41", "45", 0, 1},
		{"hand - other selectors and namespaces left out - pass",
			[]*cassette.File{file("v.yaml",
				list("resourceVersion=0", "10", "", cm("a", "5")),
				list("labelSelector=app%3Dx&resourceVersion=0", "12", "", cm("z", "11")),
				watch("labelSelector=app%3Dx&resourceVersion=12", ev("ADDED", cm("y", "13"))),
				watch("resourceVersion=10", ev("MODIFIED", cm("a", "14"))))},
			"10", "ns/a@5", "MODIFIED ns/a@14", "14", 1, 1},
		{"hand - list and watch in two parts of one recording - pass",
			[]*cassette.File{
				file("r.yaml", at(list("resourceVersion=0", "10", "", cm("a", "5")), 0)),
				file("r_001.yaml", at(watch("resourceVersion=10", ev("DELETED", cm("a", "11"))), 1))},
			"10", "ns/a@5", "DELETED ns/a@11", "11", 1, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := history.Build(tt.files...)
			if err != nil {
				t.Fatalf("Build: got error %v, want none", err)
			}
			if len(h.Logs) != 1 {
				t.Fatalf("Build: got %d logs, want 1", len(h.Logs))
			}
			l := h.Logs[0]
			checks := []struct{ what, got, want string }{
				{"resource", l.Resource.String(), "configmaps.v1"},
				{"kind", l.Resource.Kind, "ConfigMap"},
				{"StartRV", l.StartRV, tt.wantStart},
				{"Initial", objs(l.Initial), tt.wantInitial},
				{"Events", events(l.Events), tt.wantEvents},
				{"LastRV", l.LastRV(), tt.wantLast},
			}
			for _, c := range checks {
				if c.got != c.want {
					t.Errorf("%s: got %q, want %q", c.what, c.got, c.want)
				}
			}
			if !l.Resource.Namespaced {
				t.Errorf("Namespaced: got false, want true")
			}
			if l.Lists != tt.wantLists || l.Watches != tt.wantWatches {
				t.Errorf("Lists, Watches: got %d, %d, want %d, %d", l.Lists, l.Watches, tt.wantLists, tt.wantWatches)
			}
		})
	}
}

func TestBuild_EventDetails(t *testing.T) {
	h, err := history.Build(file("g.yaml",
		list("resourceVersion=0", "10", "", cm("a", "5"), cm("b", "6")),
		watch("resourceVersion=10", ev("MODIFIED", cm("a", "11"))),
		list("resourceVersion=0", "20", "", cm("a", "11"))))
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	l := h.Logs[0]
	if len(l.Events) != 2 {
		t.Fatalf("Events: got %s, want MODIFIED ns/a@11; DELETED ns/b@20", events(l.Events))
	}
	mod, del := l.Events[0], l.Events[1]
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"recorded event - location - pass", mod.From.String(), "g.yaml: interaction 1: event 0"},
		{"recorded event - previous state - pass", mod.Prev.ResourceVersion, "5"},
		{"inferred event - no location - pass", del.From.File, ""},
		{"inferred delete - previous state - pass", del.Prev.ResourceVersion, "6"},
		{"inferred delete - carries the list RV in its JSON - pass", string(del.Object.Raw),
			`{"data":{"k":"v"},"metadata":{"name":"b","namespace":"ns","resourceVersion":"20","uid":"uid-b"}}`},
		{"watch event - kind stripped - pass", string(mod.Object.Raw), cm("a", "11")},
		{"watch event - kind restored - pass", string(mod.Object.WithKind("ConfigMap", "v1")), `{"kind":"ConfigMap","apiVersion":"v1",` + cm("a", "11")[1:]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("got %s, want %s", tt.got, tt.want)
			}
		})
	}
}
