package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/history"
)

const shipped = "../../cassettes/synthetic-configmaps-pods.yaml"

func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, &out, &errOut)
	return code, out.String(), errOut.String()
}

const reproducer = "../../testdata/reproducers/tombstone_mutate.yaml"

func TestCLIErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("version: 2\ninteractions:\n  - request: {url: 'http://x/api/v1/configmaps?watch=true', method: GET}\n    response: {code: 200, body: \"{not json\\n\"}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// input is a copy of the shipped cassette that mutate may be asked to
	// overwrite.
	input := filepath.Join(dir, "input.yaml")
	data, err := os.ReadFile(shipped)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(input, data, 0o644); err != nil {
		t.Fatal(err)
	}
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	// missing is a cassette that does not exist: a flag error reported
	// with it (code 2, not 1) was found before any cassette was loaded.
	missing := filepath.Join(dir, "missing.yaml")
	out := filepath.Join(dir, "out.yaml")
	badPlan, mappingPlan, goodPlan := "testdata/plans/http-error-code-1.yaml", "testdata/plans/mapping-entry.yaml", "testdata/plans/close-watch.yaml"
	tests := []errorCase{
		{"cli - no command - fail", nil, 2, "usage: lwreplay"},
		{"cli - unknown command - fail", []string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{"inspect - no cassette - fail", []string{"inspect"}, 2, "name at least one cassette"},
		{"inspect - missing file - fail", []string{"inspect", filepath.Join(dir, "nope.yaml")}, 1, "nope.yaml"},
		{"inspect - unparsable frame - fail", []string{"inspect", bad}, 1, "bad.yaml: interaction 0: event 0"},
		{"inspect - unknown flag - fail", []string{"inspect", "--frob", shipped}, 2, "unknown flag: --frob"},

		{"serve - no cassette - fail", []string{"serve"}, 2, "name at least one cassette"},
		{"serve - bad pace - fail", []string{"serve", "--pace", "fast", shipped}, 2, `pace "fast"`},
		{"serve - NaN pace, before loading - fail", []string{"serve", "--pace", "NaNx", missing}, 2, `pace "NaNx"`},
		{"serve - infinite pace - fail", []string{"serve", "--pace", "Infx", shipped}, 2, `pace "Infx"`},
		{"serve - empty pace - fail", []string{"serve", "--pace=", shipped}, 2, "--pace: got an empty value"},
		{"serve - address without port, before loading - fail", []string{"serve", "--addr", "abc", missing}, 2, `--addr "abc"`},
		{"serve - port out of range - fail", []string{"serve", "--addr", "256.0.0.1:99999", shipped}, 2, `port "99999": want a number from 0`},
		{"serve - empty address - fail", []string{"serve", "--addr=", shipped}, 2, "--addr: got an empty value"},
		{"serve - address in use - fail", []string{"serve", "--addr", busy.Addr().String(), shipped}, 1, "--addr"},
		{"serve - empty kubeconfig path - fail", []string{"serve", "--write-kubeconfig=", shipped}, 2, "--write-kubeconfig: got an empty value"},
		{"serve - unknown fault - fail", []string{"serve", "--fault", "frobnicate", shipped}, 2, `unknown fault: "frobnicate"`},
		{"serve - http-error code 1, no HTTP error, before loading - fail", []string{"serve", "--fault", "http-error:code=1", missing}, 2, "code=1: want 400 to 599"},
		{"serve - http-error code 200, a success - fail", []string{"serve", "--fault", "http-error:code=200", shipped}, 2, "code=200: want 400 to 599"},
		{"serve - stale-list 0 events back - fail", []string{"serve", "--fault", "stale-list:back=0", shipped}, 2, "back=0: want 1 or more"},
		{"serve - delay of 0 ms - fail", []string{"serve", "--fault", "delay:ms=0", shipped}, 2, "ms=0: want 1 to 3600000"},
		{"serve - missing plan file - fail", []string{"serve", "--plan", filepath.Join(dir, "none.yaml"), shipped}, 1, "none.yaml"},
		{"serve - plan with a bad fault, before loading - fail", []string{"serve", "--plan", badPlan, missing}, 2, "faults[1]: bad fault parameter: http-error: code=1"},
		{"serve - plan entry not a string - fail", []string{"serve", "--plan", mappingPlan, shipped}, 2, "faults[0]: got a mapping"},
		{"serve - empty plan path - fail", []string{"serve", "--plan=", shipped}, 2, "--plan: got an empty value"},
		{"serve - bad fault and missing plan file: the usage error first - fail", []string{"serve", "--plan", filepath.Join(dir, "none.yaml"), "--fault", "http-error:code=1", shipped}, 2, "code=1"},
		{"serve - unknown compaction rv - fail", []string{"serve", "--compaction", "abc", shipped}, 2, `--compaction "abc": not a resourceVersion of the history (configmaps.v1 1050..1150, pods.v1 1050..1150)`},
		{"serve - compaction after the history - fail", []string{"serve", "--compaction", "99999", shipped}, 2, `--compaction "99999": after the history's newest resourceVersion 1150`},
		{"serve - empty compaction - fail", []string{"serve", "--compaction=", shipped}, 2, "--compaction: got an empty value"},
		{"serve - reproducer with a fault - fail", []string{"serve", "--fault", "close-watch", reproducer}, 2, "takes no --fault, --plan, --pace, --compaction, --expect-own-writes, --actors (got --fault)"},
		{"serve - reproducer with a plan - fail", []string{"serve", "--plan", goodPlan, reproducer}, 2, "(got --plan)"},
		{"serve - reproducer with a pace - fail", []string{"serve", "--pace", "10x", reproducer}, 2, "(got --pace)"},
		{"serve - reproducer with a compaction - fail", []string{"serve", "--compaction", "1", reproducer}, 2, "(got --compaction)"},

		{"mutate - no output - fail", []string{"mutate", "--fault", "close-watch", shipped}, 2, "-o FILE is required"},
		{"mutate - output not yaml - fail", []string{"mutate", "-o", filepath.Join(dir, "m.json"), shipped}, 2, "must end in .yaml"},
		{"mutate - output is a directory - fail", []string{"mutate", "-o", dir, shipped}, 2, "must end in .yaml"},
		{"mutate - output is the input - fail", []string{"mutate", "--fault", "close-watch", "-o", input, input}, 2, "is the input cassette"},
		{"mutate - garble-frame cannot be carried, before loading - fail", []string{"mutate", "--fault", "garble-frame", "-o", filepath.Join(dir, "g.yaml"), missing}, 2, "not supported by mutate"},
		{"mutate - negative timeout, before loading - fail", []string{"mutate", "--timeout", "-1s", "-o", out, missing}, 2, "--timeout: got -1s, want a positive duration"},
		{"mutate - zero timeout - fail", []string{"mutate", "--timeout", "0s", "-o", out, shipped}, 2, "--timeout: got 0s"},
		{"mutate - http-error code 600 - fail", []string{"mutate", "--fault", "http-error:code=600", "-o", out, shipped}, 2, "code=600: want 400 to 599"},
		{"mutate - plan with a bad fault - fail", []string{"mutate", "--plan", badPlan, "-o", out, missing}, 2, "faults[1]"},
		{"mutate - missing plan file - fail", []string{"mutate", "--plan", filepath.Join(dir, "none.yaml"), "-o", out, shipped}, 1, "none.yaml"},
		{"mutate - empty client-go - fail", []string{"mutate", "--client-go=", "-o", out, shipped}, 2, "--client-go: got an empty value"},

		{"synth - no output - fail", []string{"synth"}, 2, "-o FILE is required"},
		{"synth - negative events - fail", []string{"synth", "--events", "-1", "-o", out}, 2, "--events: got -1, want 0 or more"},
		{"synth - negative objects - fail", []string{"synth", "--objects", "-5", "-o", out}, 2, "--objects: got -5, want 0 or more"},
		{"synth - output not yaml - fail", []string{"synth", "-o", filepath.Join(dir, "x.json")}, 2, "must end in .yaml"},
		{"synth - output is a directory - fail", []string{"synth", "-o", filepath.Join(dir, "d.yaml")}, 2, "is a directory"},
		{"synth - no namespace - fail", []string{"synth", "--namespaces", "0", "-o", out}, 2, "--namespaces: got 0, want at least 1"},
		{"synth - negative namespaces - fail", []string{"synth", "--namespaces", "-2", "-o", out}, 2, "--namespaces: got -2"},
		{"synth - negative page size - fail", []string{"synth", "--page-size", "-3", "-o", out}, 2, "--page-size: got -3, want 0 or more"},
		{"synth - negative bookmark interval - fail", []string{"synth", "--bookmark-every", "-1", "-o", out}, 2, "--bookmark-every: got -1"},
		{"synth - unknown kind - fail", []string{"synth", "--kinds", "secrets", "-o", out}, 2, `--kinds: bad generate options: kind "secrets": want configmaps or pods`},
		{"synth - no kinds - fail", []string{"synth", "--kinds=", "-o", out}, 2, "--kinds: bad generate options: no kinds"},
		{"synth - 100,000,000 objects, over the memory bound - fail", []string{"synth", "--objects", "100000000", "-o", out}, 2, "over the bound of 4 GiB (raise the bound with --max-memory)"},
		{"synth - over a lowered memory bound - fail", []string{"synth", "--objects", "20000", "--max-memory", "100Mi", "-o", out}, 2, "over the bound of 100 MiB"},
		{"synth - zero memory bound - fail", []string{"synth", "--max-memory", "0", "-o", out}, 2, `--max-memory "0": want a positive size`},
		{"synth - unparsable memory bound - fail", []string{"synth", "--max-memory", "lots", "-o", out}, 2, `--max-memory "lots"`},
		{"synth - positional argument - fail", []string{"synth", "-o", out, "extra"}, 2, "unexpected arguments"},

		{"fuzz - empty artifacts directory, before loading - fail", []string{"fuzz", "--artifacts=", missing}, 2, "--artifacts: got an empty value"},
		{"fuzz - empty target - fail", []string{"fuzz", "--target=", shipped}, 2, "--target: got an empty value"},
		{"fuzz - empty level - fail", []string{"fuzz", "--level=", shipped}, 2, "--level: got an empty value"},
		{"version - an argument - fail", []string{"version", "extra"}, 2, "takes no arguments"},
	}
	if err := os.Mkdir(filepath.Join(dir, "d.yaml"), 0o755); err != nil {
		t.Fatal(err)
	}
	runErrorCases(t, tests)
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output %s: got stat error %v, want no file written by a failed command", out, err)
	}
	if got, err := os.ReadFile(input); err != nil || !bytes.Equal(got, data) {
		t.Errorf("input %s: got it changed (read error %v), want it as it was", input, err)
	}
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
	if !strings.Contains(stdout, "faults fired: ") || !strings.Contains(stdout, "watch #1 closed") {
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

// errorCaseTimeout bounds a case's command: one that is not refused
// (a server that starts serving, say) ends then with its own exit code.
const errorCaseTimeout = 20 * time.Second

// runErrorCases runs each case as a subtest.
func runErrorCases(t *testing.T, tests []errorCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), errorCaseTimeout)
			defer cancel()
			var out, errOut bytes.Buffer
			code := run(ctx, tc.args, &out, &errOut)
			stderr := errOut.String()
			if code != tc.wantCode {
				t.Errorf("exit code: got %d, want %d (stderr %q)", code, tc.wantCode, stderr)
			}
			if !strings.Contains(stderr, tc.wantErr) {
				t.Errorf("stderr: got %q, want it to contain %q", stderr, tc.wantErr)
			}
		})
	}
}
