package synth_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/synth"
)

// saved returns the bytes of f saved as a cassette file.
func saved(t testing.TB, f *cassette.File) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "g.yaml")
	if err := f.Save(path); err != nil {
		t.Fatalf("Save: got error %v, want none", err)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// generated runs Generate, saves and loads the cassette, and builds its history.
func generated(t testing.TB, o synth.GenerateOptions) *history.History {
	t.Helper()
	f, err := synth.Generate(o)
	if err != nil {
		t.Fatalf("Generate(%+v): got error %v, want none", o, err)
	}
	path := filepath.Join(t.TempDir(), "g.yaml")
	if err := f.Save(path); err != nil {
		t.Fatalf("Save: got error %v, want none", err)
	}
	files, err := cassette.LoadAll(path)
	if err != nil {
		t.Fatalf("LoadAll: got error %v, want none", err)
	}
	h, err := history.Build(files...)
	if err != nil {
		t.Fatalf("Build: got error %v, want none", err)
	}
	return h
}

func TestGenerate_Determinism(t *testing.T) {
	t.Parallel()
	base := synth.GenerateOptions{Objects: 30, Events: 120, Seed: 7, PageSize: 8, BookmarkEvery: 10}
	other := base
	other.Seed = 8
	pods := base
	pods.Kinds = []string{"pods"}
	tests := []struct {
		name      string
		a, b      synth.GenerateOptions
		wantEqual bool
	}{
		{"same seed - same bytes - pass", base, base, true},
		{"same seed, pods only - same bytes - pass", pods, pods, true},
		{"different seed - different bytes - pass", base, other, false},
		{"different kinds - different bytes - pass", base, pods, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fa, err := synth.Generate(tt.a)
			if err != nil {
				t.Fatalf("Generate: got error %v, want none", err)
			}
			fb, err := synth.Generate(tt.b)
			if err != nil {
				t.Fatalf("Generate: got error %v, want none", err)
			}
			if got := bytes.Equal(saved(t, fa), saved(t, fb)); got != tt.wantEqual {
				t.Errorf("cassettes equal: got %v, want %v", got, tt.wantEqual)
			}
		})
	}
}

func TestGenerate_Counts(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		o         synth.GenerateOptions
		wantKinds []string
	}{
		{"defaults - pass", synth.GenerateOptions{Objects: 20, Events: 60, Seed: 1}, []string{"ConfigMap", "Pod"}},
		{"no events - pass", synth.GenerateOptions{Objects: 10, Seed: 2}, []string{"ConfigMap", "Pod"}},
		{"no initial objects - pass", synth.GenerateOptions{Events: 25, Seed: 3}, nil},
		{"one initial object - second kind starts empty - pass", synth.GenerateOptions{Objects: 1, Events: 80, Seed: 4}, []string{"ConfigMap", "Pod"}},
		{"pods only, pages, bookmarks - pass", synth.GenerateOptions{Objects: 25, Events: 100, Seed: 5, Kinds: []string{"pods"}, PageSize: 4, BookmarkEvery: 3}, []string{"Pod"}},
		{"configmaps only, many namespaces - pass", synth.GenerateOptions{Objects: 60, Events: 30, Seed: 6, Kinds: []string{"configmaps"}, Namespaces: 9}, []string{"ConfigMap"}},
		{"two events - pass", synth.GenerateOptions{Objects: 3, Events: 2, Seed: 7}, []string{"ConfigMap", "Pod"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := generated(t, tt.o)
			initial, evs := 0, 0
			var kinds []string
			namespaces := map[string]bool{}
			for _, l := range h.Logs {
				kinds = append(kinds, l.Resource.Kind)
				initial += len(l.Initial)
				evs += len(l.Events)
				for _, o := range l.Initial {
					namespaces[o.Namespace] = true
				}
				if !l.Resource.Namespaced {
					t.Errorf("%s: got cluster-scoped, want namespaced", l.Resource)
				}
			}
			if initial != tt.o.Objects {
				t.Errorf("initial objects: got %d, want %d", initial, tt.o.Objects)
			}
			if evs != tt.o.Events {
				t.Errorf("events: got %d, want %d", evs, tt.o.Events)
			}
			if tt.wantKinds != nil && !equalStrings(kinds, tt.wantKinds) {
				t.Errorf("kinds: got %v, want %v", kinds, tt.wantKinds)
			}
			wantNS := tt.o.Namespaces
			if wantNS == 0 {
				wantNS = 3
			}
			if len(namespaces) > wantNS || (tt.o.Objects >= 10*wantNS && len(namespaces) != wantNS) {
				t.Errorf("namespaces: got %d, want %d", len(namespaces), wantNS)
			}
		})
	}
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestGenerate_BadOptions(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    synth.GenerateOptions
	}{
		{"negative objects - fail", synth.GenerateOptions{Objects: -1}},
		{"negative events - fail", synth.GenerateOptions{Events: -1}},
		{"negative page size - fail", synth.GenerateOptions{PageSize: -1}},
		{"unknown kind - fail", synth.GenerateOptions{Kinds: []string{"secrets"}}},
		{"empty kinds - fail", synth.GenerateOptions{Kinds: []string{}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := synth.Generate(tt.o); !errors.Is(err, synth.ErrOptions) {
				t.Errorf("Generate(%+v): got error %v, want ErrOptions", tt.o, err)
			}
		})
	}
}

func BenchmarkBuild5000(b *testing.B) {
	f, err := synth.Generate(synth.GenerateOptions{Objects: 5000, Events: 1000, Seed: 1, Kinds: []string{"configmaps"}, PageSize: 500})
	if err != nil {
		b.Fatalf("Generate: got error %v, want none", err)
	}
	f.Path = "bench.yaml"
	b.ReportAllocs()
	for b.Loop() {
		h, err := history.Build(f)
		if err != nil {
			b.Fatalf("Build: got error %v, want none", err)
		}
		if n := len(h.Logs[0].Initial); n != 5000 {
			b.Fatalf("initial objects: got %d, want 5000", n)
		}
	}
}
