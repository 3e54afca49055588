package history_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

// podWatchList returns a WatchList answer for pods in namespace ns: items
// (podItem) as initial events, the initial-events-end bookmark at endRV,
// then frames.
func podWatchList(endRV string, items []string, frames ...string) cassette.Interaction {
	body := ""
	for _, it := range items {
		body += `{"type":"ADDED","object":{"kind":"Pod","apiVersion":"v1",` + it[1:] + "}\n"
	}
	body += `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"` + endRV +
		`","annotations":{"k8s.io/initial-events-end":"true"}}}}` + "\n"
	for _, f := range frames {
		body += f + "\n"
	}
	return get("/api/v1/pods?watch=true&sendInitialEvents=true&resourceVersionMatch=NotOlderThan", body)
}

// podEvent returns a watch frame of a pod.
func podEvent(typ, ns, name, rv string) string {
	return fmt.Sprintf(`{"type":%q,"object":{"kind":"Pod","apiVersion":"v1",%s}`, typ, podItem(ns, name, rv)[1:])
}

func TestBuild_OpaqueOrder(t *testing.T) {
	const wl = "sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
	cmWatchList := watch(wl, ev("ADDED", cm("a", "r0000a")), bookmark("r0000q", true), ev("MODIFIED", cm("a", "r0000r")))
	tests := []struct {
		name       string
		ints       []cassette.Interaction
		resource   string // the log checked
		wantEvents string
		wantLast   string
	}{
		{"opaque - a stream's order is the order, whatever the values - pass",
			[]cassette.Interaction{list("resourceVersion=0", "rv-10", "", cm("a", "rv-5")),
				watch("resourceVersion=rv-10", ev("MODIFIED", cm("a", "rv-12")), ev("MODIFIED", cm("a", "rv-11")))},
			"configmaps", "MODIFIED ns/a@rv-12; MODIFIED ns/a@rv-11", "rv-11"},
		{"opaque - the same string in two resources places nothing - pass",
			// configmaps' initial-events-end bookmark carries r0000q, which
			// is also the RV of pods' newest initial object
			[]cassette.Interaction{cmWatchList,
				podWatchList("r0000q", []string{podItem("ns", "p1", "r0000b"), podItem("ns", "p2", "r0000q")}, podEvent("MODIFIED", "ns", "p1", "r0000s"))},
			"pods", "MODIFIED ns/p1@r0000s", "r0000s"},
		{"opaque - re-watch from the last RV seen - merged - pass",
			[]cassette.Interaction{list("resourceVersion=0", "x", "", cm("a", "w")),
				watch("resourceVersion=x", ev("MODIFIED", cm("a", "m")), ev("ADDED", cm("b", "c"))),
				watch("resourceVersion=c", ev("DELETED", cm("a", "k")))},
			"configmaps", "MODIFIED ns/a@m; ADDED ns/b@c; DELETED ns/a@k", "k"},
		{"opaque - relist after a gap - changes inferred after what was seen - pass",
			[]cassette.Interaction{list("resourceVersion=0", "x", "", cm("a", "w")),
				watch("resourceVersion=x", ev("MODIFIED", cm("a", "m"))),
				list("resourceVersion=0", "z", "", cm("a", "m"), cm("b", "c"))},
			"configmaps", "MODIFIED ns/a@m; ADDED ns/b@c", "z"},
		{"decimal - a stream in value order - pass",
			[]cassette.Interaction{list("resourceVersion=0", "10", "", cm("a", "5")),
				watch("resourceVersion=10", ev("MODIFIED", cm("a", "11")), ev("MODIFIED", cm("a", "12")))},
			"configmaps", "MODIFIED ns/a@11; MODIFIED ns/a@12", "12"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h, err := history.Build(file("o.yaml", tt.ints...))
			if err != nil {
				t.Fatalf("Build: got error %v, want none", err)
			}
			l, ok := h.Log(history.Resource{Version: "v1", Resource: tt.resource})
			if !ok {
				t.Fatalf("Log %s: got none, want one", tt.resource)
			}
			if got := events(l.Events); got != tt.wantEvents {
				t.Errorf("events: got %q, want %q", got, tt.wantEvents)
			}
			if got := l.LastRV(); got != tt.wantLast {
				t.Errorf("LastRV: got %q, want %q", got, tt.wantLast)
			}
			if _, err := h.RVs(); err != nil {
				t.Errorf("RVs: got error %v, want none", err)
			}
		})
	}
}

func TestBuild_OpaqueContradictions(t *testing.T) {
	tests := []struct {
		name  string
		ints  []cassette.Interaction
		where string
	}{
		{"decimal - a stream that goes back by value - fail",
			[]cassette.Interaction{list("resourceVersion=0", "10", "", cm("a", "5")),
				watch("resourceVersion=10", ev("MODIFIED", cm("a", "12")), ev("MODIFIED", cm("a", "11")))},
			"o.yaml: interaction 1: event 1: resourceVersion 11 after 12"},
		{"opaque - an RV seen again after a newer one in a stream - fail",
			[]cassette.Interaction{list("resourceVersion=0", "x", "", cm("a", "w")),
				watch("resourceVersion=x", ev("MODIFIED", cm("a", "m")), ev("MODIFIED", cm("a", "n")), ev("MODIFIED", cm("a", "m")))},
			"o.yaml: interaction 1: event 2: resourceVersion m after n"},
		{"opaque - a re-watch that sends what came before its RV - fail",
			[]cassette.Interaction{list("resourceVersion=0", "x", "", cm("a", "w")),
				watch("resourceVersion=x", ev("MODIFIED", cm("a", "m")), ev("MODIFIED", cm("a", "n"))),
				watch("resourceVersion=n", ev("MODIFIED", cm("a", "m")))},
			"o.yaml: interaction 2: event 0: resourceVersion m is not after the watch's resourceVersion n"},
		{"opaque - a list item seen after its list's RV - fail",
			[]cassette.Interaction{list("resourceVersion=0", "x", "", cm("a", "w")),
				watch("resourceVersion=x", ev("MODIFIED", cm("a", "m")), bookmark("p", false), ev("MODIFIED", cm("a", "q"))),
				list("resourceVersion=p&resourceVersionMatch=Exact", "p", "", cm("a", "q"))},
			"o.yaml: interaction 2: ns/a has resourceVersion q, newer than the list's p"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := history.Build(file("o.yaml", tt.ints...))
			checkBuildErr(t, err, history.ErrContradiction, tt.where)
		})
	}
}

func TestRVs_ResourcesDisagree(t *testing.T) {
	// configmaps show x before y, pods y before x: no one order holds both
	pods := func(frames ...string) cassette.Interaction {
		return get("/api/v1/pods?watch=true&resourceVersion=s", strings.Join(frames, "\n")+"\n")
	}
	h, err := history.Build(file("d.yaml",
		list("resourceVersion=0", "s", "", cm("a", "r")),
		watch("resourceVersion=s", ev("MODIFIED", cm("a", "x")), ev("MODIFIED", cm("a", "y"))),
		get("/api/v1/pods?resourceVersion=0", `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"s"},"items":[`+podItem("ns", "p", "r")+`]}`),
		pods(podEvent("MODIFIED", "ns", "p", "y"), podEvent("MODIFIED", "ns", "p", "x"))))
	if err != nil {
		t.Fatalf("Build: got error %v, want none (each resource's order holds)", err)
	}
	if _, err := h.RVs(); !errors.Is(err, history.ErrUnknownRV) {
		t.Errorf("RVs - resources order shared RVs differently - fail: got error %v, want %v", err, history.ErrUnknownRV)
	}
	if _, err := history.RewriteRVs(h, func(rv string) string { return "n" + rv }); err == nil {
		t.Errorf("RewriteRVs - resources order shared RVs differently - fail: got no error, want one")
	}
}

func TestRewriteRVs_Opaque(t *testing.T) {
	const wl = "sendInitialEvents=true&resourceVersionMatch=NotOlderThan"
	h, err := history.Build(file("o.yaml",
		watch(wl, ev("ADDED", cm("a", "r0000a")), bookmark("r0000q", true), ev("MODIFIED", cm("a", "r0000r"))),
		podWatchList("r0000q", []string{podItem("ns", "p1", "r0000b"), podItem("ns", "p2", "r0000q")}, podEvent("MODIFIED", "ns", "p1", "r0000s"))))
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	rvs, err := h.RVs()
	if err != nil {
		t.Fatalf("RVs: got error %v, want none", err)
	}
	rank := map[string]string{}
	for i, rv := range rvs {
		rank[rv] = fmt.Sprintf("n%03d", i)
	}
	out, err := history.RewriteRVs(h, func(rv string) string { return rank[rv] })
	if err != nil {
		t.Fatalf("RewriteRVs: got error %v, want none", err)
	}
	for _, l := range out.Logs {
		t.Run("rewrite - "+l.Resource.String()+" - its own order kept - pass", func(t *testing.T) {
			orig, _ := h.Log(l.Resource)
			if got, want := l.StartRV, rank[orig.StartRV]; got != want {
				t.Errorf("StartRV: got %s, want %s", got, want)
			}
			for _, o := range l.Initial {
				if !l.Order().Less(o.ResourceVersion, l.StartRV) && o.ResourceVersion != l.StartRV {
					t.Errorf("initial %s@%s: got it after the start %s, want it at or before", o.Key(), o.ResourceVersion, l.StartRV)
				}
			}
			if pos, err := l.Position(l.LastRV()); err != nil || pos != l.End() {
				t.Errorf("Position(LastRV): got %d, %v, want %d", pos, err, l.End())
			}
		})
	}
}

func TestHistoryOrder_NumericAndOpaque(t *testing.T) {
	// configmaps' RVs are decimal (listed out of value order: 9 before 5),
	// pods' are opaque: the history's order merges configmaps' by value
	h, err := history.Build(file("m.yaml",
		list("resourceVersion=0", "10", "", cm("a", "9"), cm("b", "5")),
		watch("resourceVersion=10", ev("MODIFIED", cm("a", "11")), bookmark("12", false)),
		get("/api/v1/pods?resourceVersion=0", `{"kind":"PodList","apiVersion":"v1","metadata":{"resourceVersion":"s"},"items":[`+podItem("ns", "p", "r")+`]}`)))
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	o := h.Order()
	if o.Numeric() {
		t.Fatalf("Numeric: got true, want false (pods' RVs are opaque)")
	}
	tests := []struct {
		name  string
		a, b  string
		want  int
		known bool
	}{
		{"decimal log - by value, not by appearance - pass", "5", "9", -1, true},
		{"decimal log - list RV after its items - pass", "9", "10", -1, true},
		{"decimal log - event after the list - pass", "11", "10", 1, true},
		{"decimal log - bookmark after the event - pass", "12", "11", 1, true},
		{"opaque log - item before its list RV - pass", "r", "s", -1, true},
		{"decimal log - RV never seen - fail", "7", "9", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := o.Compare(tt.a, tt.b)
			if got != tt.want || ok != tt.known {
				t.Errorf("Compare(%s, %s): got %d, %v, want %d, %v", tt.a, tt.b, got, ok, tt.want, tt.known)
			}
		})
	}
	if _, err := h.RVs(); err != nil {
		t.Errorf("RVs: got error %v, want none", err)
	}
}
