package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestDocsCommands checks every command README.md, docs/*.md and the
// examples' READMEs show. go test's packages must be packages of the
// module it runs in. A -fuzz regexp must match exactly one fuzz test of
// its package (of the repository, when none is named). -run and -bench
// must match a test or benchmark. A test flag must be one the package's
// tests define. lwreplay's verbs and flags must be the command's (its
// --help). The files a command reads must exist. lwreplay inspect and
// version run for real. Without -short, go list lists every package
// named.
func TestDocsCommands(t *testing.T) {
	funcs := newTestFuncs()
	var pkgs [][2]string // dir, package pattern: for go list
	n, ran := 0, 0
	for _, doc := range commandDocs(t) {
		for _, c := range docCommands(t, doc) {
			n++
			named, err := checkCommand(c, funcs, &ran)
			for _, p := range named {
				pkgs = append(pkgs, [2]string{c.dir, p})
			}
			if err != nil {
				t.Errorf("docs command - %s: %s - runs as shown - pass: got %v, want none", c.where, c.text, err)
			}
		}
	}
	if n < 40 || ran < 2 {
		t.Errorf("docs commands: got %d checked, %d run, want the documents' 40 and more, inspect and version run", n, ran)
	}
	t.Logf("%d commands checked, %d run", n, ran)
	if testing.Short() {
		return
	}
	slices.SortFunc(pkgs, func(a, b [2]string) int { return strings.Compare(a[0]+" "+a[1], b[0]+" "+b[1]) })
	for _, p := range slices.Compact(pkgs) {
		cmd := exec.Command("go", "list", p[1])
		cmd.Dir = filepath.Join(repoRoot, p[0])
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("docs command - go list %s in %s - lists it - pass: got error %v, want none:\n%s", p[1], p[0], err, out)
		}
	}
}

// checkCommand checks one command; it returns the packages a go test
// names.
func checkCommand(c docCommand, funcs *testFuncs, ran *int) ([]string, error) {
	switch {
	case c.args[0] == "go" && c.args[1] == "test":
		return checkGoTest(c, funcs)
	case c.args[0] == "go" && c.args[1] == "run":
		return nil, checkLwreplay(c, c.args[3:], ran)
	case c.args[0] == "lwreplay":
		return nil, checkLwreplay(c, c.args[1:], ran)
	}
	return nil, checkOther(c)
}

// TestDocsCommandChecks shows each check of TestDocsCommands fire on a
// command that cannot run as shown, and hold on its fix.
func TestDocsCommandChecks(t *testing.T) {
	tests := []struct {
		name, line string
		fails      bool
	}{
		{"go test - -fuzz matching two fuzz tests - fail", `go test -run '^$' -fuzz FuzzMirror ./examples/tombstone`, true},
		{"go test - -fuzz anchored - pass", `go test -run '^$' -fuzz '^FuzzMirror$' ./examples/tombstone`, false},
		{"go test - -fuzz of no package, matching three in the repository - fail", `go test -fuzz FuzzReconciler`, true},
		{"go test - a package of another module - fail", `go test ./examples/reconciler`, true},
		{"go test - the other module, cd there - pass", `(cd examples/reconciler && go test ./...)`, false},
		{"go test - -run matching no test - fail", `go test ./fuzz -run TestNoSuchThing`, true},
		{"go test - a test flag the package defines - pass", `go test ./fuzz -run TestDocsTables -update-docs`, false},
		{"go test - a test flag no one defines - fail", `go test ./fuzz -run TestDocsTables -update-doc`, true},
		{"go test - -bench matching no benchmark - fail", `go test -run '^$' -bench BenchmarkNoSuch ./replayer/`, true},
		{"lwreplay - an unknown verb - fail", `lwreplay frobnicate`, true},
		{"lwreplay - an unknown flag - fail", `go run ./cmd/lwreplay fuzz cassettes/real-configmaps-pods-watchlist.yaml --no-such`, true},
		{"lwreplay - a missing cassette - fail", `go run ./cmd/lwreplay inspect cassettes/no-such.yaml`, true},
		{"lwreplay - inspect a shipped cassette - pass", `go run ./cmd/lwreplay inspect cassettes/real-configmaps-pods-watchlist.yaml`, false},
		{"script - missing - fail", `e2e/no-such.sh`, true},
	}
	funcs := newTestFuncs()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := "."
			var errs []error
			cmds := shellCommands("test", tc.line, &dir, true)
			if len(cmds) == 0 {
				t.Fatalf("got no command in %q, want one", tc.line)
			}
			for _, c := range cmds {
				ran := 0
				_, err := checkCommand(c, funcs, &ran)
				errs = append(errs, err)
			}
			if err := errors.Join(errs...); (err != nil) != tc.fails {
				t.Errorf("got error %v, want failing %v", err, tc.fails)
			}
		})
	}
}

// goTestBool and goTestValue are go test's own flags the docs may use.
var (
	goTestBool  = []string{"short", "v", "json", "race", "cover", "benchmem", "failfast", "artifacts", "x", "n"}
	goTestValue = []string{"run", "skip", "fuzz", "bench", "benchtime", "fuzztime", "fuzzminimizetime", "count", "timeout",
		"p", "parallel", "cpu", "tags", "cpuprofile", "memprofile", "o", "list", "coverprofile", "outputdir", "exec", "toolexec"}
)

// checkGoTest checks a go test command; it returns the packages named.
func checkGoTest(c docCommand, funcs *testFuncs) ([]string, error) {
	var pkgs, custom []string
	values := map[string]string{}
	args := c.args[2:]
	for i := 0; i < len(args); i++ { // the packages: words that are no flag's value
		a := args[i]
		name, _, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case strings.HasPrefix(a, "-") && slices.Contains(goTestValue, name) && !hasValue:
			i++
		case a == "." || strings.HasPrefix(a, "./"):
			pkgs = append(pkgs, a)
		}
	}
	var dirs []string
	for _, p := range pkgs {
		d, err := packageDirs(c.dir, p)
		if err != nil {
			return pkgs, err
		}
		dirs = append(dirs, d...)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") {
			continue
		}
		name, value, hasValue := strings.Cut(strings.TrimLeft(a, "-"), "=")
		switch {
		case slices.Contains(goTestBool, name):
		case slices.Contains(goTestValue, name):
			if !hasValue {
				if i+1 == len(args) {
					if len(args) == 1 {
						return nil, nil // "go test -fuzz": the mode named, not a command
					}
					return pkgs, fmt.Errorf("flag -%s: got no value", name)
				}
				i++
				value = args[i]
			}
			values[name] = value
		default:
			isBool, ok := funcs.flag(dirs, name)
			if !ok {
				return pkgs, fmt.Errorf("flag -%s: defined by neither go test nor the tests of %v", name, pkgs)
			}
			custom = append(custom, name)
			if !isBool && !hasValue {
				i++
			}
		}
	}
	if len(pkgs) == 0 && len(values) == 0 && len(custom) == 0 {
		return nil, nil // "go test", "go test -short": the tool named
	}
	scope, where := dirs, fmt.Sprint(rel(dirs))
	if len(pkgs) == 0 {
		scope, where = funcs.all(), "the repository"
	}
	if re, ok := values["fuzz"]; ok {
		if len(pkgs) > 1 || len(dirs) > 1 {
			return pkgs, fmt.Errorf("-fuzz %s: got packages %v, want one (go test fuzzes one package)", re, pkgs)
		}
		got, err := funcs.matching(scope, "Fuzz", re)
		if err != nil {
			return pkgs, err
		}
		if len(got) != 1 {
			return pkgs, fmt.Errorf("-fuzz %s: matches fuzz tests %v of %v, want exactly one (anchor it: '^Name$')", re, got, where)
		}
	}
	if re, ok := values["run"]; ok && re != "^$" {
		top, _, _ := strings.Cut(re, "/")
		got, err := funcs.matching(scope, "Test|Fuzz|Example", top)
		if err != nil {
			return pkgs, err
		}
		if len(got) == 0 {
			return pkgs, fmt.Errorf("-run %s: matches no test of %s", re, where)
		}
	}
	if re, ok := values["bench"]; ok {
		got, err := funcs.matching(scope, "Benchmark", re)
		if err != nil {
			return pkgs, err
		}
		if len(got) == 0 {
			return pkgs, fmt.Errorf("-bench %s: matches no benchmark of %s", re, where)
		}
	}
	return pkgs, nil
}

// rel returns dirs relative to the repository.
func rel(dirs []string) []string {
	var out []string
	for _, d := range dirs {
		r, _ := filepath.Rel(repoRoot, d)
		out = append(out, r)
	}
	return out
}

// moduleRoot returns the directory of the go.mod that holds dir.
func moduleRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return ""
		}
	}
}

// packageDirs returns the directories of package pattern p, run in dir
// (relative to the repository): an error for one outside dir's module.
func packageDirs(dir, p string) ([]string, error) {
	base := filepath.Join(repoRoot, dir)
	mod := moduleRoot(base)
	root, all := strings.CutSuffix(p, "/...")
	if p == "./..." {
		root, all = ".", true
	}
	d := filepath.Join(base, root)
	if st, err := os.Stat(d); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("package %s: no directory %s", p, d)
	}
	if m := moduleRoot(d); m != mod {
		return nil, fmt.Errorf("package %s, run in %s: it is in the module of %s, not this one's (cd there)", p, dir, m)
	}
	if !all {
		return []string{d}, nil
	}
	var dirs []string
	err := filepath.WalkDir(d, func(path string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		if path != d && (moduleRoot(path) != mod || e.Name() == "testdata" || strings.HasPrefix(e.Name(), ".") || strings.HasPrefix(e.Name(), "_")) {
			return filepath.SkipDir
		}
		dirs = append(dirs, path)
		return nil
	})
	return dirs, err
}
