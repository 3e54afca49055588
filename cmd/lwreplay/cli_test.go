package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

const shipped = "../../cassettes/synthetic-configmaps-pods.yaml"

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestCLIErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 2\ninteractions:\n  - request: {url: 'http://x/api/v1/configmaps?watch=true', method: GET}\n    response: {code: 200, body: \"{not json\\n\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []errorCase{
		{"cli - no command - fail", nil, 2, "usage: lwreplay"},
		{"cli - unknown command - fail", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"inspect - no cassette - fail", []string{"inspect"}, 2, "name at least one cassette"},
		{"inspect - missing file - fail", []string{"inspect", filepath.Join(dir, "nope.yaml")}, 1, "nope.yaml"},
		{"inspect - unparsable frame - fail", []string{"inspect", bad}, 1, "bad.yaml: interaction 0: event 0"},
		{"inspect - unknown flag - fail", []string{"inspect", "--frob", shipped}, 2, "unknown flag: --frob"},
		{"serve - bad pace - fail", []string{"serve", "--pace", "fast", shipped}, 2, `pace "fast"`},
		{"serve - address in use or invalid - fail", []string{"serve", "--addr", "256.0.0.1:99999", shipped}, 1, "--addr"},
		{"serve - unknown fault - fail", []string{"serve", "--fault", "frobnicate", shipped}, 2, `unknown fault: "frobnicate"`},
		{"serve - missing plan file - fail", []string{"serve", "--plan", filepath.Join(dir, "none.yaml"), shipped}, 1, "none.yaml"},
		{"mutate - no output - fail", []string{"mutate", "--fault", "close-watch", shipped}, 2, "-o FILE is required"},
		{"mutate - garble-frame cannot be carried - fail", []string{"mutate", "--fault", "garble-frame", "-o", filepath.Join(dir, "g.yaml"), shipped}, 1, "not supported by mutate"},
		{"synth - no output - fail", []string{"synth"}, 2, "-o FILE is required"},
		{"synth - negative events - fail", []string{"synth", "--events", "-1", "-o", filepath.Join(dir, "x.yaml")}, 2, "must not be negative"},
		{"synth - output not yaml - fail", []string{"synth", "-o", filepath.Join(dir, "x.json")}, 1, "must end in .yaml"},
	}
	runErrorCases(t, tests)
}

func TestInspect(t *testing.T) {
	t.Run("inspect - shipped cassette as text - pass", func(t *testing.T) {
		code, out, stderr := runCLI("inspect", shipped)
		if code != 0 {
			t.Fatalf("exit code: got %d, want 0; stderr %s", code, stderr)
		}
		for _, want := range []string{"configmaps.v1", "pods.v1", "ConfigMap", "namespaced", "RV RANGE"} {
			if !strings.Contains(out, want) {
				t.Errorf("output: missing %q; got:\n%s", want, out)
			}
		}
	})
	t.Run("inspect - shipped cassette as JSON - pass", func(t *testing.T) {
		code, out, stderr := runCLI("inspect", "--json", shipped)
		if code != 0 {
			t.Fatalf("exit code: got %d, want 0; stderr %s", code, stderr)
		}
		var s history.Summary
		if err := json.Unmarshal([]byte(out), &s); err != nil {
			t.Fatalf("output is not a JSON summary: %v\n%s", err, out)
		}
		events := 0
		for _, r := range s.Resources {
			events += r.Events[history.Added] + r.Events[history.Modified] + r.Events[history.Deleted]
		}
		if len(s.Resources) != 2 || events != 100 {
			t.Errorf("summary: got %d resources and %d events, want 2 and 100", len(s.Resources), events)
		}
	})
}

func TestMutate(t *testing.T) {
	out := filepath.Join(t.TempDir(), "repro.yaml")
	code, stdout, stderr := runCLI("mutate", "--fault", "close-watch:after=2,watch=1", "-o", out, "../../cassettes/real-configmaps-pods-watchlist.yaml")
	if code != 0 {
		t.Fatalf("mutate: exit code %d, want 0; stderr %s", code, stderr)
	}
	if !strings.Contains(stdout, "faults fired: watch #1 closed") {
		t.Errorf("mutate output: got %q, want the story of the close", stdout)
	}
	files, err := cassette.LoadAll(out)
	if err != nil {
		t.Fatalf("load reproducer: %v", err)
	}
	if !cassette.IsVerbatim(files...) {
		t.Errorf("reproducer: got interactions not marked verbatim, want all marked")
	}
}

func TestSynth(t *testing.T) {
	dir := t.TempDir()
	a, b, c := filepath.Join(dir, "a.yaml"), filepath.Join(dir, "b.yaml"), filepath.Join(dir, "c.yaml")
	for _, args := range [][]string{
		{"synth", "--objects", "10", "--events", "20", "--seed", "7", "-o", a},
		{"synth", "--objects", "10", "--events", "20", "--seed", "7", "-o", b},
		{"synth", "--objects", "10", "--events", "20", "--seed", "8", "-o", c},
	} {
		if code, _, stderr := runCLI(args...); code != 0 {
			t.Fatalf("%v: exit code %d, want 0; stderr %s", args, code, stderr)
		}
	}
	ra, _ := os.ReadFile(a)
	rb, _ := os.ReadFile(b)
	rc, _ := os.ReadFile(c)
	if !bytes.Equal(ra, rb) {
		t.Errorf("synth - same seed - fail: got different files, want identical bytes")
	}
	if bytes.Equal(ra, rc) {
		t.Errorf("synth - other seed - fail: got identical files, want different bytes")
	}
	code, out, _ := runCLI("inspect", "--json", a)
	var s history.Summary
	if code != 0 || json.Unmarshal([]byte(out), &s) != nil {
		t.Fatalf("inspect of synth output: exit %d, output %q", code, out)
	}
	objects, events := 0, 0
	for _, r := range s.Resources {
		objects += r.InitialObjects
		events += r.Events[history.Added] + r.Events[history.Modified] + r.Events[history.Deleted]
	}
	if objects != 10 || events != 20 {
		t.Errorf("synth output: got %d objects and %d events, want 10 and 20", objects, events)
	}
}

// errorCase is a command line that must fail: its exit code and a part of
// what it writes to stderr.
type errorCase struct {
	name     string
	args     []string
	wantCode int
	wantErr  string // substring of stderr
}

// runErrorCases runs each case as a subtest.
func runErrorCases(t *testing.T, tests []errorCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI(tc.args...)
			if code != tc.wantCode {
				t.Errorf("exit code: got %d, want %d (stderr %q)", code, tc.wantCode, stderr)
			}
			if !strings.Contains(stderr, tc.wantErr) {
				t.Errorf("stderr: got %q, want it to contain %q", stderr, tc.wantErr)
			}
		})
	}
}
