package fuzz

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/oracle"
	"github.com/lwreplay/lwreplay/fuzz/targets"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/fuzzing.md's generated tables from the registries")

// fuzzingDoc is the fuzzing reference, which carries the invariant and
// target tables.
const fuzzingDoc = "../docs/fuzzing.md"

// targetTable renders Targets as docs/fuzzing.md shows them.
func targetTable() string {
	var b strings.Builder
	b.WriteString("| target | what it runs |\n|---|---|\n")
	for _, t := range targets.Builtin {
		fmt.Fprintf(&b, "| `%s` | %s |\n", t.Name, t.Doc)
	}
	return b.String()
}

// invariantTable renders Invariants as docs/fuzzing.md shows them.
func invariantTable() string {
	var b strings.Builder
	b.WriteString("| invariant | judges | what it checks | the guarantee it guards |\n|---|---|---|---|\n")
	for _, inv := range oracle.Invariants {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", inv.Name, inv.Scope, inv.Doc, strings.ReplaceAll(inv.Guarantee, "|", "\\|"))
	}
	return b.String()
}

// scenarioTable renders Scenarios as docs/fuzzing.md shows them.
func scenarioTable() string {
	var b strings.Builder
	b.WriteString("| scenario | its plans, and why a real cluster may act them out |\n|---|---|\n")
	for _, s := range Scenarios {
		fmt.Fprintf(&b, "| `%s` | %s |\n", s.Name, strings.ReplaceAll(s.Doc, "|", "\\|"))
	}
	return b.String()
}

// section returns the text between <!-- name:begin --> and <!-- name:end -->
// lines of doc, and doc with it replaced by with.
func section(doc, name, with string) (got, replaced string, err error) {
	begin, end := "<!-- "+name+":begin -->\n", "<!-- "+name+":end -->\n"
	before, after, ok := strings.Cut(doc, begin)
	if !ok {
		return "", "", fmt.Errorf("no line %q", strings.TrimSpace(begin))
	}
	got, rest, ok := strings.Cut(after, end)
	if !ok {
		return "", "", fmt.Errorf("no line %q after %q", strings.TrimSpace(end), strings.TrimSpace(begin))
	}
	return got, before + begin + with + end + rest, nil
}

// TestDocsTables holds docs/fuzzing.md's invariant, target and scenario tables to
// the registries (go test ./fuzz -run TestDocsTables -update-docs rewrites
// them).
func TestDocsTables(t *testing.T) {
	data, err := os.ReadFile(fuzzingDoc)
	if err != nil {
		t.Fatalf("read %s: got error %v, want none", fuzzingDoc, err)
	}
	doc := string(data)
	for _, tc := range []struct{ name, want string }{{"targets", targetTable()}, {"invariants", invariantTable()}, {"scenarios", scenarioTable()}} {
		got, replaced, err := section(doc, tc.name, tc.want)
		if err != nil {
			t.Fatalf("%s: got error %v, want the %s markers", fuzzingDoc, err, tc.name)
		}
		if *updateDocs {
			doc = replaced
			continue
		}
		if got != tc.want {
			t.Errorf("docs %s table - stale - fail: got\n%s\nwant\n%s\n(run go test ./fuzz -run TestDocsTables -update-docs)", tc.name, got, tc.want)
		}
	}
	if *updateDocs {
		if err := os.WriteFile(fuzzingDoc, []byte(doc), 0o644); err != nil {
			t.Fatalf("write %s: got error %v, want none", fuzzingDoc, err)
		}
	}
}
