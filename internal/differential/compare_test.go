package differential

import (
	"slices"
	"testing"
)

func TestCompare(t *testing.T) {
	pod := Key{Resource: "pods", Namespace: "diff-job", Name: "work#0"}
	running := Lifecycle{"created: phase=Pending", "phase=Running", "deleted"}
	tests := []struct {
		name         string
		real, replay map[Key]Lifecycle
		want         []string // What of each difference, in order
	}{
		{name: "compare - same lifecycles - pass", real: map[Key]Lifecycle{pod: running}, replay: map[Key]Lifecycle{pod: running}},
		{name: "compare - both empty - pass"},
		{name: "compare - object only on the real cluster - fail", real: map[Key]Lifecycle{pod: running}, want: []string{OnlyReal}},
		{name: "compare - object only in the replay - fail", replay: map[Key]Lifecycle{pod: running}, want: []string{OnlyReplay}},
		{
			name:   "compare - final state differs - fail",
			real:   map[Key]Lifecycle{pod: running},
			replay: map[Key]Lifecycle{pod: {"created: phase=Pending", "phase=Running"}},
			want:   []string{FinalDiffers},
		},
		{
			name:   "compare - same final state through other states - fail",
			real:   map[Key]Lifecycle{pod: running},
			replay: map[Key]Lifecycle{pod: {"created: phase=Pending", "deleted"}},
			want:   []string{StatesDiffer},
		},
		{
			name:   "compare - same final state, made anew on one side only - fail",
			real:   map[Key]Lifecycle{pod: {"created: phase=Running"}},
			replay: map[Key]Lifecycle{pod: {"created: phase=Running", "deleted", "created: phase=Running"}},
			want:   []string{LifecycleDiffers},
		},
		{
			name:   "compare - an object never changed after its creation - pass",
			real:   map[Key]Lifecycle{pod: {"created: phase=Running"}},
			replay: map[Key]Lifecycle{pod: {"created: phase=Running"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, d := range Compare(tt.real, tt.replay) {
				got = append(got, d.What)
				if d.Key != pod {
					t.Errorf("got key %v, want %v", d.Key, pod)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got differences %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCompareOrder(t *testing.T) {
	a := Key{Resource: "pods", Namespace: "diff-a", Name: "x"}
	b := Key{Resource: "jobs", Namespace: "diff-b", Name: "x"}
	c := Key{Resource: "pods", Namespace: "diff-b", Name: "x"}
	l := Lifecycle{"created: "}
	got := Compare(map[Key]Lifecycle{c: l, a: l}, map[Key]Lifecycle{b: l})
	var keys []Key
	for _, d := range got {
		keys = append(keys, d.Key)
	}
	if want := []Key{a, b, c}; !slices.Equal(keys, want) {
		t.Errorf("compare - order - pass: got %v, want %v", keys, want)
	}
}

func TestExplain(t *testing.T) {
	d := Difference{Key: Key{Resource: "pods", Namespace: "diff-job", Name: "work#1"}, What: LifecycleDiffers}
	tests := []struct {
		name  string
		known Known
		want  bool
	}{
		{name: "explain - every field matches - pass", known: Known{Resource: "pods", Script: "job", Name: "work#", What: LifecycleDiffers}, want: true},
		{name: "explain - empty fields match any - pass", known: Known{}, want: true},
		{name: "explain - other resource - fail", known: Known{Resource: "jobs"}},
		{name: "explain - other script - fail", known: Known{Script: "deployment"}},
		{name: "explain - other name - fail", known: Known{Name: "web"}},
		{name: "explain - other what - fail", known: Known{What: FinalDiffers}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.known.Reason = "why"
			explained, unexplained := Explain([]Difference{d}, []Known{tt.known})
			if got := len(explained["why"]) == 1 && len(unexplained) == 0; got != tt.want {
				t.Errorf("got explained %v (unexplained %d), want %v", got, len(unexplained), tt.want)
			}
		})
	}
}
