package synth_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
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
		name    string
		o       synth.GenerateOptions
		wantErr error
		errHas  string
	}{
		{"negative objects - fail", synth.GenerateOptions{Objects: -1}, synth.ErrOptions, "objects -1: want 0 or more"},
		{"negative events - fail", synth.GenerateOptions{Events: -1}, synth.ErrOptions, "events -1"},
		{"negative namespaces - fail", synth.GenerateOptions{Namespaces: -2}, synth.ErrOptions, "namespaces -2"},
		{"negative page size - fail", synth.GenerateOptions{PageSize: -3}, synth.ErrOptions, "page size -3: want 0 or more"},
		{"negative bookmark every - fail", synth.GenerateOptions{BookmarkEvery: -1}, synth.ErrOptions, "bookmark every -1"},
		{"negative max memory - fail", synth.GenerateOptions{MaxMemory: -1}, synth.ErrOptions, "max memory -1"},
		{"unknown kind - fail", synth.GenerateOptions{Kinds: []string{"secrets"}}, synth.ErrOptions, `kind "secrets": want configmaps or pods`},
		{"empty kinds - fail", synth.GenerateOptions{Kinds: []string{}}, synth.ErrOptions, "no kinds"},
		{"over the default memory bound - fail", synth.GenerateOptions{Objects: 100_000_000, Events: 100}, synth.ErrTooLarge, "over the bound of 4 GiB"},
		{"over a given memory bound - fail", synth.GenerateOptions{Objects: 20_000, MaxMemory: 100 << 20}, synth.ErrTooLarge, "over the bound of 100 MiB"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := synth.Generate(tt.o)
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.errHas) {
				t.Errorf("Generate(%+v): got error %v, want %v saying %q", tt.o, err, tt.wantErr, tt.errHas)
			}
			if err != nil && strings.Contains(err.Error(), "{") {
				t.Errorf("Generate(%+v): got error %q, want one that names the option, not a Go struct", tt.o, err)
			}
		})
	}
}

func TestEstimateSize(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    synth.GenerateOptions
	}{
		{"estimate - default kinds - pass", synth.GenerateOptions{Objects: 2000, Events: 1000, Seed: 1}},
		{"estimate - pods only, bookmarks - pass", synth.GenerateOptions{Objects: 500, Events: 2000, Seed: 2, Kinds: []string{"pods"}, BookmarkEvery: 2}},
		{"estimate - configmaps only, pages - pass", synth.GenerateOptions{Objects: 3000, Events: 500, Seed: 3, Kinds: []string{"configmaps"}, PageSize: 100}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := synth.EstimateSize(tt.o)
			f, err := synth.Generate(tt.o)
			if err != nil {
				t.Fatalf("Generate: got error %v, want none", err)
			}
			size := len(saved(t, f))
			if got, want := float64(e.FileBytes), float64(size); got < 0.75*want || got > 1.25*want {
				t.Errorf("FileBytes: got %d, want within a quarter of the file's %d bytes", e.FileBytes, size)
			}
			if e.InMemoryBytes <= e.FileBytes {
				t.Errorf("InMemoryBytes: got %d, want more than the file's %d bytes", e.InMemoryBytes, e.FileBytes)
			}
			if e.MemoryBytes <= 0 || e.MemoryBytes > e.InMemoryBytes {
				t.Errorf("MemoryBytes: got %d, want positive and at most InMemoryBytes %d", e.MemoryBytes, e.InMemoryBytes)
			}
		})
	}
	t.Run("estimate - a million events stream within the default bound - pass", func(t *testing.T) {
		e := synth.EstimateSize(synth.GenerateOptions{Objects: 10_000, Events: 1_000_000, PageSize: 500, BookmarkEvery: 10})
		if e.MemoryBytes > synth.DefaultMaxMemory || e.InMemoryBytes <= synth.DefaultMaxMemory {
			t.Errorf("EstimateSize: got streaming %d, in memory %d bytes; want streaming within %d, in memory over it",
				e.MemoryBytes, e.InMemoryBytes, int64(synth.DefaultMaxMemory))
		}
	})
	t.Run("estimate - no overflow for the largest counts - pass", func(t *testing.T) {
		e := synth.EstimateSize(synth.GenerateOptions{Objects: math.MaxInt, Events: math.MaxInt})
		if e.FileBytes <= 0 || e.MemoryBytes != math.MaxInt64 || e.InMemoryBytes != math.MaxInt64 {
			t.Errorf("EstimateSize: got %+v, want positive bytes saturated at MaxInt64", e)
		}
	})
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
