package fuzz

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/lwreplay/lwreplay/faults"
	"github.com/lwreplay/lwreplay/fuzz/internal/explore"
	"github.com/lwreplay/lwreplay/fuzz/observe"
	"github.com/lwreplay/lwreplay/internal/bubble"
)

const exploreCassette = "../cassettes/real-configmaps-pods-watchlist.yaml"

// take returns the first n inputs of in.
func take(in *inputs, n int) [][]byte {
	out := make([][]byte, n)
	for i := range out {
		_, out[i] = in.next()
	}
	return out
}

func TestExploreInputs(t *testing.T) {
	seeds := [][]byte{{0}, {0, 0}}
	a := take(newInputs([][][]byte{seeds}, 7), 200)
	tests := []struct {
		name string
		ok   bool
		got  string
		want string
	}{
		{"inputs - seeds come first - pass", bytes.Equal(a[0], seeds[0]) && bytes.Equal(a[1], seeds[1]),
			fmt.Sprintf("%q %q", a[0], a[1]), fmt.Sprintf("%q %q", seeds[0], seeds[1])},
		{"inputs - same seed - pass", equalInputs(a, take(newInputs([][][]byte{seeds}, 7), 200)), "a different sequence", "the same sequence"},
		{"inputs - other seed - pass", !equalInputs(a, take(newInputs([][][]byte{seeds}, 8), 200)), "the same sequence", "a different sequence"},
	}
	lengths := map[int]bool{}
	faultBytes := 0
	for _, in := range a[2:] {
		lengths[len(in)] = true
		for _, b := range in[min(2, len(in)):] {
			if b >= faults.FirstFaultByte {
				faultBytes++
			}
		}
	}
	okLen := len(lengths) == MaxRandomPlanBytes+1
	for n := range lengths {
		okLen = okLen && n >= 2 && n <= 2+MaxRandomPlanBytes
	}
	tests = append(tests,
		struct {
			name string
			ok   bool
			got  string
			want string
		}{"inputs - lengths span 2 to 2+MaxRandomPlanBytes - pass", okLen, fmt.Sprint(lengths), fmt.Sprintf("every length 2..%d", 2+MaxRandomPlanBytes)},
		struct {
			name string
			ok   bool
			got  string
			want string
		}{"inputs - some plan bytes are faults - pass", faultBytes > 0, fmt.Sprint(faultBytes), "some"},
	)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Errorf("got %s, want %s", tc.got, tc.want)
			}
		})
	}
}

func equalInputs(a, b [][]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

func TestExploreTally(t *testing.T) {
	broke := errors.New("broke")
	fired := func(names ...string) *observe.Observation {
		obs := &observe.Observation{}
		for _, n := range names {
			obs.Fired = append(obs.Fired, faults.Firing{Fault: n})
		}
		return obs
	}
	tl := explore.NewTally()
	tl.Add(tallyRun(&Outcome{Observation: fired(), Results: map[string]error{"converged": nil, "live": nil}}))
	tl.Add(tallyRun(&Outcome{Observation: fired("delay", "reset", "delay"), Results: map[string]error{"converged": broke, "live": nil}, Report: "x"}))
	tl.Add(tallyRun(&Outcome{Observation: fired("delay"), Results: map[string]error{"converged": nil, "live": broke}, Report: "y", Expected: true}))
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"tally - runs - pass", tl.Runs, 3},
		{"tally - failures - pass", tl.Failures, 1},
		{"tally - expected - pass", tl.Expected, 1},
		{"tally - columns in registry order - pass", fmt.Sprint(tl.Columns()), fmt.Sprint([]string{"reset", "delay", explore.NoneColumn})},
		{"tally - converged × delay - pass", tl.Cell("converged", "delay"), explore.Cell{Runs: 2, Broken: 1}},
		{"tally - converged × reset - pass", tl.Cell("converged", "reset"), explore.Cell{Runs: 1, Broken: 1}},
		{"tally - live × delay - pass", tl.Cell("live", "delay"), explore.Cell{Runs: 2, Broken: 1}},
		{"tally - converged × none - pass", tl.Cell("converged", explore.NoneColumn), explore.Cell{Runs: 1, Broken: 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %v, want %v", tc.got, tc.want)
			}
		})
	}
	t.Run("tally - table cells - pass", func(t *testing.T) {
		var b bytes.Buffer
		tl.Write(&b)
		row := regexp.MustCompile(`(?m)^converged\s+1/1\s+2/1\s+1/0$`)
		if !row.MatchString(b.String()) {
			t.Errorf("table: got\n%s\nwant a row converged 1/1 2/1 1/0", b.String())
		}
	})
}

// forgetful is a target that lists once and then shows an empty store: it
// breaks the converged invariant on every run.
var forgetful = Target{Name: "forgetful", Doc: "lists once, keeps nothing", Run: func(ctx context.Context, env *Env) error {
	lw, err := env.ListerWatcher(&unstructured.Unstructured{})
	if err != nil {
		return err
	}
	if _, err := lw.List(metav1.ListOptions{}); err != nil {
		return err
	}
	env.Probe.SetStore(func() []any { return nil })
	env.Probe.SetSynced(func() bool { return true })
	<-ctx.Done()
	return nil
}}

func TestExploreFailureSaved(t *testing.T) {
	c, err := NewCampaign(Options{Cassettes: []string{exploreCassette}, Target: forgetful})
	if err != nil {
		t.Fatalf("NewCampaign: got error %v, want none", err)
	}
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "forgetful-1"), 0o755); err != nil {
		t.Fatal(err) // an earlier session's report, not to be overwritten
	}
	var out bytes.Buffer
	f := newExploration([]*Campaign{c}, root, &out)
	if err := bubble.Host(func(t *testing.T) { f.one(t, 0, []byte{0, 1}) }); err != nil {
		t.Fatalf("host: got error %v, want none", err)
	}
	report, readErr := os.ReadFile(filepath.Join(root, "forgetful-2", ReportFile))
	tests := []struct {
		name string
		ok   bool
		got  string
		want string
	}{
		{"failure - counted - pass", f.tally.Failures == 1 && f.tally.Runs == 1,
			fmt.Sprintf("%d failures in %d runs", f.tally.Failures, f.tally.Runs), "1 failure in 1 run"},
		{"failure - printed with its report path - pass",
			strings.Contains(out.String(), "FINDING 1: converged,synced-after-initial,live") && strings.Contains(out.String(), filepath.Join(root, "forgetful-2", ReportFile)),
			out.String(), "FINDING 1 with its signature and the report path under forgetful-2"},
		{"failure - report written next to an earlier one - pass", readErr == nil, fmt.Sprint(readErr), "a readable report.txt"},
		{"failure - timeline path printed - pass", strings.Contains(out.String(), "fuzz: timeline "+filepath.Join(root, "forgetful-2", TimelineFile)),
			out.String(), "fuzz: timeline <dir>/timeline.html"},
		{"failure - timeline written beside the report - pass", fileExists(filepath.Join(root, "forgetful-2", TimelineFile)),
			"no " + TimelineFile, "one"},
		{"failure - report names the invariant - pass", strings.Contains(string(report), "invariant converged"), string(report), "invariant converged"},
		{"failure - report names the cassette given - pass",
			strings.Contains(string(report), "cassette: "+exploreCassette), string(report), "cassette: " + exploreCassette},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Errorf("got %s, want %s", tc.got, tc.want)
			}
		})
	}
}

// TestFuzzFindingsBySignature runs one failing target on two inputs: one
// finding, one report, two runs counted, and the report says so.
func TestExploreFindingsBySignature(t *testing.T) {
	c, err := NewCampaign(Options{Cassettes: []string{exploreCassette}, Target: forgetful})
	if err != nil {
		t.Fatalf("NewCampaign: got error %v, want none", err)
	}
	root := t.TempDir()
	var out bytes.Buffer
	f := newExploration([]*Campaign{c}, root, &out)
	if err := bubble.Host(func(t *testing.T) {
		f.one(t, 0, []byte{0, 1})
		f.one(t, 0, []byte{0, 0})
	}); err != nil {
		t.Fatalf("host: got error %v, want none", err)
	}
	f.seed = 3
	f.countFindings()
	f.WriteSummary(&out)
	dirs, _ := filepath.Glob(filepath.Join(root, "*"))
	report, _ := os.ReadFile(filepath.Join(root, "forgetful-1", ReportFile))
	tests := []struct {
		name string
		ok   bool
		got  string
		want string
	}{
		{"findings - same signature on both paths - one finding - pass", len(f.findings) == 1 && f.findings[0].runs == 2,
			fmt.Sprintf("%d findings", len(f.findings)), "1 finding of 2 runs"},
		{"findings - one report directory - pass", len(dirs) == 1, fmt.Sprint(dirs), "one directory"},
		{"findings - the summary line - pass", strings.Contains(out.String(), "finding 1: converged,synced-after-initial,live: 2 runs, smallest plan no fault: "),
			out.String(), "finding 1: SIGNATURE: 2 runs, smallest plan no fault: REPORT"},
		{"findings - the report counts the runs - pass", strings.Contains(string(report), "runs with this signature: 2 of 2 (lwreplay fuzz --seed 3)"),
			string(report), "runs with this signature: 2 of 2"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Errorf("got %s, want %s", tc.got, tc.want)
			}
		})
	}
}

// fileExists reports whether path names a regular file.
func fileExists(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular()
}

func TestInputsRoundRobin(t *testing.T) {
	in := newInputs([][][]byte{{{0}, {0, 0}}, {{1}}}, 7)
	var got []string
	for range 6 {
		c, data := in.next()
		if len(got) < 3 {
			got = append(got, fmt.Sprintf("%d:%q", c, data))
		} else {
			got = append(got, fmt.Sprint(c))
		}
	}
	want := []string{`0:"\x00"`, `1:"\x01"`, `0:"\x00\x00"`, "1", "0", "1"}
	t.Run("inputs - two campaigns - seeds of each first, campaigns in turn - pass", func(t *testing.T) {
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("got %v, want %v", got, want)
		}
	})
	t.Run("inputs - no campaign seeds - random inputs for campaign 0 - pass", func(t *testing.T) {
		c, data := newInputs(nil, 7).next()
		if c != 0 || len(data) < 2 {
			t.Errorf("got campaign %d, input %q, want campaign 0 and a random input", c, data)
		}
	})
}
