package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/history"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

const (
	realExpired   = "../../cassettes/real-configmaps-expired.yaml"
	realListPages = "../../cassettes/real-configmaps-pods-list-pages.yaml"
	malformed     = "../../testdata/malformed/"
	opaqueRV      = "../../testdata/reproducers/opaque_rv.yaml"
)

// copyFile copies src to dst.
func copyFile(t *testing.T, src, dst string) {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// summaries decodes the JSON documents inspect --json printed, one per
// recording.
func summaries(t *testing.T, out string) []history.Summary {
	t.Helper()
	var got []history.Summary
	dec := json.NewDecoder(strings.NewReader(out))
	for {
		var s history.Summary
		err := dec.Decode(&s)
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatalf("inspect --json: got %v decoding\n%s\nwant JSON summaries", err, out)
		}
		got = append(got, s)
	}
}

// TestRecordingsRule checks the one rule for several files in every verb:
// files are one recording only as a recorder's rotations. serve and mutate
// replay one, and refuse others, naming them. inspect describes each. fuzz
// takes each as a cassette.
func TestRecordingsRule(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.yaml")
	copyFile(t, realExpired, a)
	x, x1 := testutil.SplitRotation(t, realListPages, dir, "x")
	refusal := "replays one recording, and the files given hold 2: (1) " + a + "; (2) " + x + " " + x1 + "; files load as one recording only when"
	t.Run("serve - a file and a two-part recording - usage error naming both - fail", func(t *testing.T) {
		code, _, stderr := runCLI("serve", dir)
		if code != 2 || !strings.Contains(stderr, "serve "+refusal) {
			t.Errorf("got exit %d, stderr %q, want 2 and %q", code, stderr, "serve "+refusal)
		}
	})
	t.Run("mutate - a file and a two-part recording - usage error naming both, no output - fail", func(t *testing.T) {
		out := filepath.Join(t.TempDir(), "m.yaml")
		code, _, stderr := runCLI("mutate", "-o", out, a, x, x1)
		if code != 2 || !strings.Contains(stderr, "mutate "+refusal) {
			t.Errorf("got exit %d, stderr %q, want 2 and %q", code, stderr, "mutate "+refusal)
		}
		if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("output: got %v, want none", err)
		}
	})
	t.Run("inspect - a file and a two-part recording - each described - pass", func(t *testing.T) {
		code, out, stderr := runCLI("inspect", dir)
		if code != 0 {
			t.Fatalf("exit code: got %d, want 0; stderr %s", code, stderr)
		}
		for _, want := range []string{"recording 1 of 2: " + a + "\n", "recording 2 of 2: " + x + " " + x1 + "\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("output: got\n%s\nwant a line %q", out, want)
			}
		}
	})
	t.Run("inspect --json - two parts - one summary, as the unsplit file's - pass", func(t *testing.T) {
		_, out, _ := runCLI("inspect", "--json", x1, x)
		_, whole, _ := runCLI("inspect", "--json", realListPages)
		got, want := summaries(t, out), summaries(t, whole)
		if len(got) != 1 || len(want) != 1 {
			t.Fatalf("summaries: got %d and %d, want 1 each", len(got), len(want))
		}
		got[0].Files, want[0].Files = nil, nil
		g, _ := json.Marshal(got[0])
		w, _ := json.Marshal(want[0])
		if !bytes.Equal(g, w) {
			t.Errorf("summary of the parts: got %s, want %s", g, w)
		}
	})
	t.Run("inspect --json - a file and a two-part recording - two documents - pass", func(t *testing.T) {
		_, out, _ := runCLI("inspect", "--json", dir)
		if got := summaries(t, out); len(got) != 2 || len(got[1].Files) != 2 {
			t.Errorf("summaries: got %d (%+v), want 2, the second of 2 files", len(got), got)
		}
	})
	t.Run("fuzz - a file and a two-part recording - two cassettes - pass", func(t *testing.T) {
		_, out, stderr := runCLI("fuzz", "--duration", "1ms", "--parallel", "1", "--watchlist", "off", "--artifacts", t.TempDir(), dir)
		if !strings.Contains(out, ", 2 cassette(s), resources configmaps.v1, pods.v1 (1 of 2 cassettes),") {
			t.Errorf("header: got %q (stderr %q), want 2 cassettes, pods recorded by one", out, stderr)
		}
	})
}

func TestSalvage(t *testing.T) {
	cut := malformed + "cut_body.yaml"
	artifacts := t.TempDir()
	tests := []struct {
		name       string
		args       []string
		wantCode   int
		wantStderr string
		wantStdout string
	}{
		{"inspect - a file cut in a watch frame - error names the interaction and line, hints --salvage - fail",
			[]string{"inspect", cut}, 1,
			"cut_body.yaml: interaction 1 (line 39): response has no status code (is the file truncated?); --salvage loads its complete interactions", ""},
		{"inspect --salvage - a file cut in a watch frame - the complete interactions, the drop said - pass",
			[]string{"inspect", "--salvage", cut}, 0,
			"lwreplay inspect: warning: " + cut + ": salvaged: kept 1 complete interactions, dropped 1 cut short", "configmaps.v1"},
		{"fuzz --salvage - a file cut in a watch frame - fuzzed, the drop said - pass",
			[]string{"fuzz", "--salvage", "--duration", "1ms", "--parallel", "1", "--artifacts", artifacts, cut}, 0,
			"lwreplay fuzz: warning: " + cut + ": salvaged: kept 1 complete interactions", ", 1 cassette(s), resources configmaps.v1,"},
		{"inspect --salvage - damage before the last interaction - still an error - fail",
			[]string{"inspect", "--salvage", malformed + "bad_frame.yaml"}, 1, "bad_frame.yaml: interaction 1: event 2: unparsable frame", ""},
		{"inspect --salvage - a go-vcr file of unrelated traffic - still an error - fail",
			[]string{"inspect", "--salvage", malformed + "not_kubernetes.yaml"}, 1, "no Kubernetes list or watch traffic: " + malformed + "not_kubernetes.yaml: 4 interactions", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, stderr := runCLI(tt.args...)
			if code != tt.wantCode {
				t.Errorf("exit code: got %d, want %d (stderr %q)", code, tt.wantCode, stderr)
			}
			if !strings.Contains(stderr, tt.wantStderr) {
				t.Errorf("stderr: got %q, want it to contain %q", stderr, tt.wantStderr)
			}
			if !strings.Contains(out, tt.wantStdout) {
				t.Errorf("stdout: got %q, want it to contain %q", out, tt.wantStdout)
			}
		})
	}
}

// TestFailedRunsLeaveNoOutput runs each verb that writes a file so that it
// fails, and wants nothing left where it writes: no partial file, no
// temporary one.
func TestFailedRunsLeaveNoOutput(t *testing.T) {
	kubeconfig := serveUpstream(t, recordUpstream(t))
	notFile := filepath.Join(t.TempDir(), "plain")
	if err := os.WriteFile(notFile, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     func(out string) []string
		wantCode int
		wantErr  string
	}{
		{"mutate - a go-vcr file of unrelated traffic - fail",
			func(out string) []string { return []string{"mutate", "-o", out, malformed + "not_kubernetes.yaml"} }, 1, "no Kubernetes list or watch traffic"},
		{"mutate - a file cut short - fail",
			func(out string) []string { return []string{"mutate", "-o", out, malformed + "cut_body.yaml"} }, 1, "response has no status code"},
		{"mutate - two recordings - fail",
			func(out string) []string { return []string{"mutate", "-o", out, realExpired, realListPages} }, 2, "mutate replays one recording"},
		{"synth - output under a file - fail",
			func(out string) []string { return []string{"synth", "-o", filepath.Join(notFile, "s.yaml")} }, 1, "plain"},
		{"record - an unknown resource - fail",
			func(out string) []string {
				return []string{"record", "--kubeconfig", kubeconfig, "--duration", "1ms", "--resource", "pods,frobs", "-o", out}
			}, 1, `unknown resource: "frobs"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			code, _, stderr := runCLI(tt.args(filepath.Join(dir, "out.yaml"))...)
			if code != tt.wantCode || !strings.Contains(stderr, tt.wantErr) {
				t.Errorf("got exit %d, stderr %q, want %d and %q", code, stderr, tt.wantCode, tt.wantErr)
			}
			entries, err := os.ReadDir(dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				t.Errorf("output directory: got %s, want nothing", e.Name())
			}
		})
	}
}

// TestOpaqueReproducer checks that the opaque-rv reproducer lwreplay mutate
// writes (testdata/reproducers/opaque_rv.yaml) is one lwreplay takes:
// inspect describes it and fuzz replays it with every invariant held.
func TestOpaqueReproducer(t *testing.T) {
	t.Run("inspect - opaque resourceVersions - described - pass", func(t *testing.T) {
		code, out, stderr := runCLI("inspect", opaqueRV)
		if code != 0 {
			t.Fatalf("exit code: got %d, want 0; stderr %s", code, stderr)
		}
		for _, want := range []string{"r00000q..r00002c", "r00000q..r000027"} {
			if !strings.Contains(out, want) {
				t.Errorf("output: got\n%s\nwant %q", out, want)
			}
		}
	})
	t.Run("fuzz - opaque resourceVersions - replayed, no failure - pass", func(t *testing.T) {
		code, out, stderr := runCLI("fuzz", "--duration", "1s", "--parallel", "1", "--artifacts", t.TempDir(), opaqueRV)
		if code != 0 || !strings.Contains(out, " 0 findings (0 failing runs)") {
			t.Errorf("got exit %d, stdout %q, stderr %q, want 0 and no failure", code, out, stderr)
		}
	})
}
