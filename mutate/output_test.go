package mutate

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
)

// TestRunOutput checks where a run writes: into a stage beside the
// output, renamed into place once the run has succeeded. It replaces
// an earlier reproducer at the output, and its parts.
func TestRunOutput(t *testing.T) {
	t.Parallel()
	files, err := cassette.LoadAll(realCassette)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "repro.yaml")
	// an earlier reproducer in three parts, and a file of another name
	for _, p := range []string{out, cassette.RotatedName(out, 1), cassette.RotatedName(out, 2), filepath.Join(dir, "other.yaml")} {
		if err := os.WriteFile(p, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var during []string
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		go func() {
			time.Sleep(time.Second) // the run is under way
			during = dirFiles(t, dir)
		}()
		res, err := Run(ctx, files, out, Options{Timeout: 10 * time.Minute, Settle: time.Minute})
		if err != nil {
			t.Fatalf("Run: got error %v, want none", err)
		}
		if !slices.Equal(res.Files, []string{out}) {
			t.Errorf("Result.Files: got %v, want [%s]", res.Files, out)
		}
	})
	t.Run("output - during the run - only the stage is new - pass", func(t *testing.T) {
		var stages int
		for _, n := range during {
			if filepath.Ext(n) == ".tmp" {
				stages++
			}
		}
		if stages != 1 {
			t.Errorf("entries during the run: got %v, want the earlier files and one stage directory", during)
		}
	})
	t.Run("output - after the run - the reproducer, its earlier parts gone - pass", func(t *testing.T) {
		if got := dirFiles(t, dir); !slices.Equal(got, []string{"other.yaml", "repro.yaml"}) {
			t.Errorf("entries: got %v, want [other.yaml repro.yaml]", got)
		}
		repro, err := cassette.LoadAll(out)
		if err != nil || !cassette.IsVerbatim(repro...) {
			t.Errorf("reproducer: got error %v, want a verbatim cassette", err)
		}
	})
}

func TestStage(t *testing.T) {
	t.Parallel()
	t.Run("stage - discarded - nothing left - pass", func(t *testing.T) {
		dir := t.TempDir()
		s, err := newStage(filepath.Join(dir, "r.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(s.path(), []byte("partial"), 0o644); err != nil {
			t.Fatal(err)
		}
		s.discard()
		if got := dirFiles(t, dir); len(got) != 0 {
			t.Errorf("entries: got %v, want none", got)
		}
	})
	t.Run("stage - output not .yaml - fail", func(t *testing.T) {
		if _, err := newStage(filepath.Join(t.TempDir(), "r.json")); err == nil {
			t.Errorf("newStage: got no error, want one")
		}
	})
	t.Run("stage - two parts committed over a one-part reproducer - both in place - pass", func(t *testing.T) {
		dir := t.TempDir()
		out := filepath.Join(dir, "r.yaml")
		if err := os.WriteFile(out, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
		s, err := newStage(out)
		if err != nil {
			t.Fatal(err)
		}
		parts := []string{s.path(), cassette.RotatedName(s.path(), 1)}
		for _, p := range parts {
			if err := os.WriteFile(p, []byte("new"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := s.commit(parts)
		if err != nil {
			t.Fatalf("commit: got error %v, want none", err)
		}
		if want := []string{out, cassette.RotatedName(out, 1)}; !slices.Equal(got, want) {
			t.Errorf("files: got %v, want %v", got, want)
		}
		if names := dirFiles(t, dir); !slices.Equal(names, []string{"r.yaml", "r_001.yaml"}) {
			t.Errorf("entries: got %v, want [r.yaml r_001.yaml]", names)
		}
	})
}
