package oracle

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// recordedParents is a recorded history of two parent configmaps, ns/a
// and ns/b (RVs 1000, 1001).
func recordedParents(t *testing.T) *history.History {
	t.Helper()
	b := synth.NewBuilder()
	for _, n := range []string{"a", "b"} {
		b.Add(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: n}, Data: map[string]string{"v": n}})
	}
	b.Snapshot()
	h, err := b.History()
	if err != nil {
		t.Fatalf("History: got error %v, want nil", err)
	}
	return h
}

// write is one of a target's writes as the replay places it: an event of
// typ of the configmap whose JSON is obj.
type write struct {
	typ  history.EventType
	obj  string
	from string // the writer, when not the target: "garbage-collector"
}

// created is a create of child name of parent with the given uid and
// creation time, as the model apiserver stores it.
func created(name, parent, uid, at string) write {
	return write{typ: history.Added, obj: fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"ns","uid":%q,"creationTimestamp":%q},"data":{"parent":%q}}`,
		name, uid, at, parent)}
}

// withWrites returns h with ws appended to its configmaps log as the
// target's writes, RVs from 2000 on.
func withWrites(t *testing.T, h *history.History, ws ...write) *history.History {
	t.Helper()
	var evs []history.Event
	for i, w := range ws {
		raw := strings.Replace(w.obj, `"metadata":{`, fmt.Sprintf(`"metadata":{"resourceVersion":"%d",`, 2000+i), 1)
		o, _, _, err := history.ParseObject([]byte(raw))
		if err != nil {
			t.Fatalf("ParseObject(%s): got error %v, want nil", raw, err)
		}
		from := history.TargetWrite
		if w.from != "" {
			from = w.from
		}
		evs = append(evs, history.Event{Type: w.typ, Object: o, From: history.Location{File: from, Event: -1}})
	}
	if len(evs) == 0 {
		return h
	}
	out, err := history.AppendEvents(h, h.Logs[0].Resource, evs...)
	if err != nil {
		t.Fatalf("AppendEvents: got error %v, want nil", err)
	}
	return out
}

func TestDiffOutcome(t *testing.T) {
	t.Parallel()
	base := recordedParents(t)
	child := created("a-child", "a", "u1", "2000-01-01T00:00:01Z")
	gen := func(name, uid string) write {
		return write{typ: history.Added, obj: fmt.Sprintf(`{"metadata":{"name":%q,"generateName":"job-","namespace":"ns","uid":%q},"data":{"k":"v"}}`, name, uid)}
	}
	learned := LearnMasks(FinalStateOf(withWrites(t, base, write{typ: history.Added, obj: `{"metadata":{"name":"a-child","namespace":"ns","annotations":{"at":"1"}}}`})),
		FinalStateOf(withWrites(t, base, write{typ: history.Added, obj: `{"metadata":{"name":"a-child","namespace":"ns","annotations":{"at":"2"}}}`})))
	var parentB *history.Object // ns/b, which owned returns a child of
	for _, o := range base.Logs[0].Initial {
		if o.Name == "b" {
			parentB = o
		}
	}
	owned := func(name, owner string) write {
		return write{typ: history.Added, obj: fmt.Sprintf(`{"metadata":{"name":%q,"namespace":"ns","uid":"u-%s","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"b","uid":%q,"controller":true}]},"data":{"k":"v"}}`, name, name, owner)}
	}
	deleteB := write{typ: history.Deleted, obj: fmt.Sprintf(`{"metadata":{"name":"b","namespace":"ns","uid":%q}}`, parentB.UID)}
	// ns/b deleted and created again (uid u-b2): its child is its
	// successor's, or the dead b's when the controller made it before
	recreateB := []write{deleteB, {typ: history.Added, obj: `{"metadata":{"name":"b","namespace":"ns","uid":"u-b2"},"data":{"v":"b"}}`}}
	genOwned := func(name, owner string) write {
		return write{typ: history.Added, obj: fmt.Sprintf(`{"metadata":{"name":%q,"generateName":"b-","namespace":"ns","uid":"u-%s","ownerReferences":[{"apiVersion":"v1","kind":"ConfigMap","name":"b","uid":%q,"controller":true}]},"data":{"k":"v"}}`, name, name, owner)}
	}
	tests := []struct {
		name     string
		ref, got []write
		masks    Masks
		want     error
		wantText []string
	}{
		{name: "diff outcome - equal - pass", ref: []write{child}, got: []write{child}},
		{name: "diff outcome - no writes on either side - pass"},
		{name: "diff outcome - uid, resourceVersion and creationTimestamp differ, masked - pass",
			ref: []write{child}, got: []write{created("a-child", "a", "u2", "2000-01-01T00:05:00Z")}},
		{name: "diff outcome - uid differs, no masks - fail", masks: Masks{},
			ref: []write{child}, got: []write{created("a-child", "a", "u2", "2000-01-01T00:00:01Z")},
			want: ErrDiffersFromReference, wantText: []string{`configmaps ns/a-child: metadata.uid: "u1" → "u2"`}},
		{name: "diff outcome - an extra object - fail", ref: []write{child}, got: []write{child, created("b-child", "b", "u3", "2000-01-01T00:00:01Z")},
			want: ErrDiffersFromReference, wantText: []string{"configmaps ns/b-child: extra (the reference has none)",
				"configmaps ns/b-child: ADDED by the target's writes 1 times, the reference 0"}},
		{name: "diff outcome - a missing object - fail", ref: []write{child},
			want: ErrDiffersFromReference, wantText: []string{"configmaps ns/a-child: missing (the reference has it)"}},
		{name: "diff outcome - a field differs - fail", ref: []write{child}, got: []write{created("a-child", "b", "u1", "2000-01-01T00:00:01Z")},
			want: ErrDiffersFromReference, wantText: []string{`configmaps ns/a-child: data.parent: "a" → "b"`}},
		{name: "diff outcome - created, deleted, created again - fail on the ADDED and DELETED counts", ref: []write{child},
			got:  []write{child, {typ: history.Deleted, obj: child.obj}, child},
			want: ErrDiffersFromReference, wantText: []string{"ADDED by the target's writes 2 times, the reference 1",
				"DELETED by the target's writes 1 times, the reference 0"}},
		{name: "diff outcome - a child the garbage collector deleted, created again - pass, counts not compared", ref: []write{child},
			got: []write{child, {typ: history.Deleted, obj: child.obj, from: "garbage-collector"}, child}},
		{name: "diff outcome - a child created and deleted again, gone at the end of both - pass, counts not compared",
			got: []write{child, {typ: history.Deleted, obj: child.obj}}},
		{name: "diff outcome - an extra child of a parent deleted since, the garbage collector's - pass",
			ref: []write{deleteB}, got: []write{owned("b-child", parentB.UID), deleteB}},
		{name: "diff outcome - the child of a parent created again, the dead parent's (the garbage collector's) against its successor's - pass",
			ref: append(slices.Clone(recreateB), owned("b-child", "u-b2")), got: append([]write{owned("b-child", parentB.UID)}, recreateB...)},
		{name: "diff outcome - the child of a parent created again, its successor's against the dead parent's - pass",
			ref: append([]write{owned("b-child", parentB.UID)}, recreateB...), got: append(slices.Clone(recreateB), owned("b-child", "u-b2"))},
		{name: "diff outcome - a generateName child of a parent created again, its successor's against the dead parent's - pass",
			ref: append([]write{genOwned("b-abcde", parentB.UID)}, recreateB...), got: append(slices.Clone(recreateB), genOwned("b-zyxwv", "u-b2"))},
		{name: "diff outcome - the child of a parent created again, the dead parent's against its successor's, another object extra - fail",
			ref: append(slices.Clone(recreateB), owned("b-child", "u-b2")), got: append([]write{owned("b-child", parentB.UID), child}, recreateB...),
			want: ErrDiffersFromReference, wantText: []string{"2 differences", "configmaps ns/a-child: extra"}},
		{name: "diff outcome - an extra child of a live parent - fail",
			got: []write{owned("b-child", parentB.UID)}, want: ErrDiffersFromReference, wantText: []string{"configmaps ns/b-child: extra"}},
		{name: "diff outcome - an extra child of an owner the history never held - fail",
			ref: []write{deleteB}, got: []write{owned("b-child", "u-unrecorded"), deleteB}, want: ErrDiffersFromReference,
			wantText: []string{"configmaps ns/b-child: extra"}},
		{name: "diff outcome - generateName objects with other suffixes, matched - pass",
			ref: []write{gen("job-abcde", "u1")}, got: []write{gen("job-zyxwv", "u9")}},
		{name: "diff outcome - one generateName object more - fail", ref: []write{gen("job-abcde", "u1")}, got: []write{gen("job-zyxwv", "u9"), gen("job-qqqqq", "u8")},
			want: ErrDiffersFromReference, wantText: []string{"configmaps ns/job-#1: extra", "configmaps ns/job-*: ADDED by the target's writes 2 times, the reference 1"}},
		{name: "diff outcome - a field two references differ in, learned mask - pass", masks: DefaultMaskSet().Merge(learned),
			ref: []write{{typ: history.Added, obj: `{"metadata":{"name":"a-child","namespace":"ns","annotations":{"at":"1"}}}`}},
			got: []write{{typ: history.Added, obj: `{"metadata":{"name":"a-child","namespace":"ns","annotations":{"at":"7"}}}`}}},
		{name: "diff outcome - that field without the learned mask - fail",
			ref:  []write{{typ: history.Added, obj: `{"metadata":{"name":"a-child","namespace":"ns","annotations":{"at":"1"}}}`}},
			got:  []write{{typ: history.Added, obj: `{"metadata":{"name":"a-child","namespace":"ns","annotations":{"at":"7"}}}`}},
			want: ErrDiffersFromReference, wantText: []string{`metadata.annotations.at: "1" → "7"`}},
		{name: "diff outcome - ten extra objects - fail, listed up to a bound", ref: nil,
			got: func() []write {
				var ws []write
				for i := range 10 {
					ws = append(ws, created(fmt.Sprintf("c%d", i), "a", "u", "t"))
				}
				return ws
			}(),
			want: ErrDiffersFromReference, wantText: []string{"20 differences", "… 12 more"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			masks := tt.masks
			if masks.Fields == nil && masks.Objects == nil && !strings.Contains(tt.name, "no masks") {
				masks = DefaultMaskSet()
			}
			err := DiffFinalState(FinalStateOf(withWrites(t, base, tt.ref...)), FinalStateOf(withWrites(t, base, tt.got...)), masks)
			switch {
			case tt.want == nil && err != nil:
				t.Fatalf("DiffOutcome: got %v, want nil", err)
			case tt.want != nil && !errors.Is(err, tt.want):
				t.Fatalf("DiffOutcome: got %v, want an error wrapping %v", err, tt.want)
			}
			for _, w := range tt.wantText {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("DiffOutcome: got %q, want it to contain %q", err, w)
				}
			}
		})
	}
}

func TestOutcomeOf(t *testing.T) {
	t.Parallel()
	h := withWrites(t, recordedParents(t), created("a-child", "a", "u1", "t"), write{typ: history.Deleted, obj: created("a-child", "a", "u1", "t").obj})
	got := FinalStateOf(h).Resources["configmaps"]
	if got == nil {
		t.Fatalf("Resources: got no configmaps, want them")
	}
	tests := []struct {
		name      string
		got, want any
	}{
		{"outcome - final objects: the recorded parents, the deleted child gone - pass", slices.Sorted(maps.Keys(got.Objects)), []string{"ns/a", "ns/b"}},
		{"outcome - ADDED counts the target's creates only - pass", got.Added, map[string]int{"ns/a-child": 1}},
		{"outcome - DELETED counts the target's deletes - pass", got.Deleted, map[string]int{"ns/a-child": 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if fmt.Sprint(tt.got) != fmt.Sprint(tt.want) {
				t.Errorf("got %v, want %v", tt.got, tt.want)
			}
		})
	}
}

func TestLearnMasks(t *testing.T) {
	t.Parallel()
	base := recordedParents(t)
	obj := func(stamp, extra string) write {
		return write{typ: history.Added, obj: fmt.Sprintf(`{"metadata":{"name":"a-child","namespace":"ns"},"status":{"items":[{"n":1},{"n":2,"at":%q}]}%s}`, stamp, extra)}
	}
	tests := []struct {
		name string
		a, b []write
		want string // Masks.String
	}{
		{name: "learn masks - equal runs - pass, nothing learned", a: []write{obj("1", "")}, b: []write{obj("1", "")}, want: ""},
		{name: "learn masks - a field in a list differs - pass, learned with [*]", a: []write{obj("1", "")}, b: []write{obj("2", "")},
			want: "configmaps status.items[*].at"},
		{name: "learn masks - a field one run has - pass, learned", a: []write{obj("1", "")}, b: []write{obj("1", `,"data":{"x":"y"}`)},
			want: "configmaps data.x"},
		{name: "learn masks - an object one run has - pass, learned as an object", a: []write{obj("1", "")},
			b:    []write{obj("1", ""), created("b-child", "b", "u", "t")},
			want: "configmaps object ns/b-child"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := LearnMasks(FinalStateOf(withWrites(t, base, tt.a...)), FinalStateOf(withWrites(t, base, tt.b...))).String()
			if got != tt.want {
				t.Errorf("LearnMasks: got %q, want %q", got, tt.want)
			}
		})
	}
}
