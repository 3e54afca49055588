package synth_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/internal/testutil"
	"github.com/lwreplay/lwreplay/synth"
)

func TestWriteCassette_SameBytesAsGenerate(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		o    synth.GenerateOptions
	}{
		{"defaults - same bytes - pass", synth.GenerateOptions{Objects: 50, Events: 100, Seed: 1, BookmarkEvery: 10}},
		{"pages, bookmarks, other seed - same bytes - pass", synth.GenerateOptions{Objects: 300, Events: 2000, Seed: 9, PageSize: 7, BookmarkEvery: 3}},
		{"pods only, page size over the count - same bytes - pass", synth.GenerateOptions{Objects: 200, Events: 500, Seed: 2, Kinds: []string{"pods"}, PageSize: 500}},
		{"configmaps only, no objects, last bookmark only - same bytes - pass", synth.GenerateOptions{Objects: 0, Events: 50, Seed: 3, Kinds: []string{"configmaps"}}},
		{"kinds reversed, namespaces - same bytes - pass", synth.GenerateOptions{Objects: 120, Events: 400, Seed: 4, Kinds: []string{"pods", "configmaps"}, Namespaces: 9, PageSize: 25, BookmarkEvery: 1}},
		{"nothing at all - same bytes - pass", synth.GenerateOptions{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := synth.Generate(tt.o)
			if err != nil {
				t.Fatalf("Generate: got error %v, want none", err)
			}
			want := saved(t, f)
			dir := t.TempDir()
			path := filepath.Join(dir, "s.yaml")
			n, err := synth.WriteCassette(path, tt.o)
			if err != nil {
				t.Fatalf("WriteCassette: got error %v, want none", err)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				k := 0
				for k < len(got) && k < len(want) && got[k] == want[k] {
					k++
				}
				t.Errorf("bytes: got %d bytes, want Generate+Save's %d; first difference at byte %d", len(got), len(want), k)
			}
			if n != len(f.Interactions) {
				t.Errorf("interactions: got %d, want %d", n, len(f.Interactions))
			}
			if names := testutil.DirNames(t, dir); !slices.Equal(names, []string{"s.yaml"}) {
				t.Errorf("files left: got %v, want [s.yaml] (no spill files)", names)
			}
		})
	}
}

func TestWriteCassette_Failures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		target  string // file name in a fresh directory
		prepare func(t *testing.T, dir string)
		o       synth.GenerateOptions
		wantErr error // nil: any
		want    []string
	}{
		{"name without .yaml - fail", "s.yml", nil, synth.GenerateOptions{Objects: 10, Events: 10}, cassette.ErrFormat, nil},
		{"unknown kind - fail", "s.yaml", nil, synth.GenerateOptions{Objects: 10, Kinds: []string{"secrets"}}, synth.ErrOptions, nil},
		{"over the memory bound - fail", "s.yaml", nil, synth.GenerateOptions{Objects: 1000, Events: 1000, MaxMemory: 1 << 20}, synth.ErrTooLarge, nil},
		{"target is a directory - fail", "s.yaml", func(t *testing.T, dir string) {
			if err := os.MkdirAll(filepath.Join(dir, "s.yaml", "x"), 0o755); err != nil {
				t.Fatal(err)
			}
		}, synth.GenerateOptions{Objects: 20, Events: 200, PageSize: 3}, nil, []string{"s.yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.prepare != nil {
				tt.prepare(t, dir)
			}
			_, err := synth.WriteCassette(filepath.Join(dir, tt.target), tt.o)
			if err == nil {
				t.Fatalf("WriteCassette: got no error, want one")
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("WriteCassette: got error %v, want %v", err, tt.wantErr)
			}
			if names := testutil.DirNames(t, dir); !slices.Equal(names, tt.want) {
				t.Errorf("files left: got %v, want %v", names, tt.want)
			}
		})
	}
}
