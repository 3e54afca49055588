package history_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/lwreplay/lwreplay/history"
)

// owned returns a configmap whose ownerReference names a kind of
// apiVersion; controller marks it the controller.
func owned(name, rv, uid, apiVersion, kind string, controller bool) string {
	return fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"ns","uid":%q,"resourceVersion":%q,`+
		`"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":"owner","uid":"uid-owner","controller":%v}]},"data":{"k":"v"}}`,
		name, uid, rv, apiVersion, kind, controller)
}

// takeoverHistory is ns configmaps at 10: a (a StatefulSet's), b (no
// owner), d (a Job's), e (a StatefulSet's owner, not its controller);
// then 11 MODIFIED a, 12 ADDED c (a StatefulSet's), 13 MODIFIED b, 14
// MODIFIED c, 15 MODIFIED d, 16 DELETED a, 17 ADDED a again (another UID),
// 18 MODIFIED e, 19 MODIFIED b adopted by a StatefulSet; a bookmark at 20.
func takeoverHistory(t *testing.T) *history.History {
	t.Helper()
	sts := func(name, rv, uid string) string { return owned(name, rv, uid, "apps/v1", "StatefulSet", true) }
	h, err := history.Build(file("takeover.yaml",
		list("", "10", "", sts("a", "5", "uid-a"), cm("b", "6"), owned("d", "7", "uid-d", "batch/v1", "Job", true),
			owned("e", "8", "uid-e", "apps/v1", "StatefulSet", false)),
		watch("resourceVersion=10", ev("MODIFIED", sts("a", "11", "uid-a")), ev("ADDED", sts("c", "12", "uid-c")),
			ev("MODIFIED", cm("b", "13")), ev("MODIFIED", sts("c", "14", "uid-c")),
			ev("MODIFIED", owned("d", "15", "uid-d", "batch/v1", "Job", true)), ev("DELETED", sts("a", "16", "uid-a")),
			ev("ADDED", sts("a", "17", "uid-a2")), ev("MODIFIED", owned("e", "18", "uid-e", "apps/v1", "StatefulSet", false)),
			ev("MODIFIED", sts("b", "19", "uid-b")), bookmark("20", false)),
	))
	if err != nil {
		t.Fatalf("build: %v", err)
	}
	return h
}

func TestTakeover(t *testing.T) {
	statefulSet := history.GroupKind{Group: "apps", Kind: "StatefulSet"}
	job := history.GroupKind{Group: "batch", Kind: "Job"}
	const all = "10 | ns/a@5 ns/b@6 ns/d@7 ns/e@8 | MODIFIED ns/a@11; ADDED ns/c@12; MODIFIED ns/b@13; MODIFIED ns/c@14; " +
		"MODIFIED ns/d@15; DELETED ns/a@16; ADDED ns/a@17; MODIFIED ns/e@18; MODIFIED ns/b@19 | 20"
	const allFinal = "ns/a@17 ns/b@19 ns/c@14 ns/d@15 ns/e@18"
	tests := []struct {
		name  string
		takes []history.Take
		want  string // the configmaps' log (describeLog)
		final string // its final state
		same  bool   // h itself is returned
		err   error
	}{
		{name: "takeover - a StatefulSet's objects - pass",
			takes: []history.Take{{Resource: "configmaps", ControllerKinds: []history.GroupKind{statefulSet}}},
			want:  "10 | ns/a@5 ns/b@6 ns/d@7 ns/e@8 | MODIFIED ns/d@15; MODIFIED ns/e@18 | 20", final: "ns/a@5 ns/b@6 ns/d@15 ns/e@18"},
		{name: "takeover - a StatefulSet's and a Job's objects - pass",
			takes: []history.Take{{Resource: "configmaps", ControllerKinds: []history.GroupKind{statefulSet, job}}},
			want:  "10 | ns/a@5 ns/b@6 ns/d@7 ns/e@8 | MODIFIED ns/e@18 | 20", final: "ns/a@5 ns/b@6 ns/d@7 ns/e@18"},
		{name: "takeover - two takes of one resource - pass",
			takes: []history.Take{{Resource: "configmaps", ControllerKinds: []history.GroupKind{job}},
				{Resource: "configmaps", ControllerKinds: []history.GroupKind{statefulSet}}},
			want: "10 | ns/a@5 ns/b@6 ns/d@7 ns/e@8 | MODIFIED ns/e@18 | 20", final: "ns/a@5 ns/b@6 ns/d@7 ns/e@18"},
		{name: "takeover - every object of the resource - pass",
			takes: []history.Take{{Resource: "configmaps"}},
			want:  "10 | ns/a@5 ns/b@6 ns/d@7 ns/e@8 |  | 20", final: "ns/a@5 ns/b@6 ns/d@7 ns/e@8"},
		{name: "takeover - a Job's objects only - pass",
			takes: []history.Take{{Resource: "configmaps", ControllerKinds: []history.GroupKind{job}}},
			want: "10 | ns/a@5 ns/b@6 ns/d@7 ns/e@8 | MODIFIED ns/a@11; ADDED ns/c@12; MODIFIED ns/b@13; MODIFIED ns/c@14; " +
				"DELETED ns/a@16; ADDED ns/a@17; MODIFIED ns/e@18; MODIFIED ns/b@19 | 20", final: "ns/a@17 ns/b@19 ns/c@14 ns/d@7 ns/e@18"},
		{name: "takeover - a kind no object's controller is - pass", same: true,
			takes: []history.Take{{Resource: "configmaps", ControllerKinds: []history.GroupKind{{Group: "apps", Kind: "Deployment"}}}},
			want:  all, final: allFinal},
		{name: "takeover - another resource - pass", same: true,
			takes: []history.Take{{Resource: "pods", ControllerKinds: []history.GroupKind{statefulSet}}}, want: all, final: allFinal},
		{name: "takeover - the resource in another group - pass", same: true,
			takes: []history.Take{{Group: "apps", Resource: "configmaps"}}, want: all, final: allFinal},
		{name: "takeover - none - pass", same: true, want: all, final: allFinal},
		{name: "takeover - a take without a resource - fail", takes: []history.Take{{}}, err: history.ErrRewrite},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := takeoverHistory(t)
			got, err := history.Takeover(h, tt.takes)
			if !errors.Is(err, tt.err) {
				t.Fatalf("error: got %v, want %v", err, tt.err)
			}
			if d := describeLog(h.Logs[0]); d != all {
				t.Errorf("input: got %q after the takeover, want it unchanged %q", d, all)
			}
			if err != nil {
				return
			}
			if (got == h) != tt.same {
				t.Errorf("history returned is the input: got %v, want %v", got == h, tt.same)
			}
			l := got.Logs[0]
			if d := describeLog(l); d != tt.want {
				t.Errorf("log: got %q, want %q", d, tt.want)
			}
			// Prev follows the events kept; the final state is the initial
			// state of what was taken and the events of what was not.
			for _, e := range l.Events {
				if e.Type != history.Added && e.Prev == nil {
					t.Errorf("event %s %s: got no Prev, want the state before it", e.Type, e.RV())
				}
			}
			if got, want := objs(l.StateAt(l.End())), tt.final; got != want {
				t.Errorf("final state: got %q, want %q", got, want)
			}
		})
	}
}

func TestControllerOf(t *testing.T) {
	tests := []struct {
		name   string
		raw    string
		want   history.GroupKind
		wantOK bool
	}{
		{name: "controller - an apps StatefulSet - pass", raw: owned("a", "1", "u", "apps/v1", "StatefulSet", true),
			want: history.GroupKind{Group: "apps", Kind: "StatefulSet"}, wantOK: true},
		{name: "controller - a core-group owner - pass", raw: owned("a", "1", "u", "v1", "ReplicationController", true),
			want: history.GroupKind{Kind: "ReplicationController"}, wantOK: true},
		{name: "controller - an owner that is not the controller - pass", raw: owned("a", "1", "u", "apps/v1", "StatefulSet", false)},
		{name: "controller - no owner - pass", raw: cm("a", "1")},
		{name: "controller - no JSON - pass", raw: `{"controller"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := history.ControllerOf([]byte(tt.raw))
			if got != tt.want || ok != tt.wantOK {
				t.Errorf("ControllerOf: got %v, %v, want %v, %v", got, ok, tt.want, tt.wantOK)
			}
		})
	}
}
