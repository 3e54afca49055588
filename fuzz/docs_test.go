package fuzz

import (
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
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

// fencedBlocks returns the fenced code blocks of doc whose info string is
// lang, each with its fence's indentation taken off its lines.
func fencedBlocks(doc, lang string) []string {
	var blocks []string
	var cur []string
	indent, in := "", false
	for _, line := range strings.Split(doc, "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case !in && strings.HasPrefix(trimmed, "```"):
			in, indent, cur = true, line[:len(line)-len(trimmed)], nil
			if strings.TrimSpace(strings.TrimPrefix(trimmed, "```")) != lang {
				cur = nil
				indent = "\x00" + indent // not lang: read past it
			}
		case in && strings.HasPrefix(trimmed, "```"):
			in = false
			if !strings.HasPrefix(indent, "\x00") {
				blocks = append(blocks, strings.Join(cur, "\n")+"\n")
			}
		case in:
			cur = append(cur, strings.TrimPrefix(line, indent))
		}
	}
	return blocks
}

// goDebugSnippet returns docs/fuzzing.md's Go block that holds a
// //go:debug line.
func goDebugSnippet(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(fuzzingDoc)
	if err != nil {
		t.Fatalf("read %s: got error %v, want none", fuzzingDoc, err)
	}
	for _, b := range fencedBlocks(string(data), "go") {
		if strings.Contains(b, "//go:debug randseednop=0") {
			return b
		}
	}
	t.Fatalf("%s: got no go block with //go:debug randseednop=0, want the documented fuzz test file", fuzzingDoc)
	return ""
}

// TestDocsGoDebug holds docs/fuzzing.md's fuzz test file with its
// //go:debug line to what go vet (run by go test) accepts: the line above
// the package clause. Without -short, it also vets the file as shown, in a
// module of its own that requires this one (offline, from the module
// cache).
func TestDocsGoDebug(t *testing.T) {
	src := goDebugSnippet(t)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "fuzz_test.go", src, parser.ParseComments)
	if err != nil {
		t.Fatalf("docs go:debug file - parses - pass: got error %v, want none", err)
	}
	for _, g := range f.Comments {
		for _, c := range g.List {
			if strings.HasPrefix(c.Text, "//go:debug") && g.Pos() >= f.Package {
				t.Errorf("docs go:debug file - directive placed - pass: got %s at %v, after the package clause at %v, want it above",
					c.Text, fset.Position(c.Pos()), fset.Position(f.Package))
			}
		}
	}
	if testing.Short() {
		return
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	gomod := "module example.com/mycontroller\n\ngo 1.26.0\n\nrequire github.com/lwreplay/lwreplay v0.0.0-00010101000000-000000000000\n\nreplace github.com/lwreplay/lwreplay => " + root + "\n"
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "fuzz_test.go": []byte(src)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command("go", "vet", "./...")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off", "GOPROXY=off")
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "GOPROXY=off") {
		t.Skipf("SKIPPED: a module the file needs is not in the module cache (GOPROXY=off): %v\n%s", err, out)
	}
	if err != nil {
		t.Errorf("docs go:debug file - go vet as shown - pass: got error %v, want none:\n%s", err, out)
	}
}
