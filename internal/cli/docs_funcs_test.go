package cli

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// testFuncs reads the test functions and test flags of the repository's
// packages, once each.
type testFuncs struct {
	byDir map[string]*dirTests
}

// dirTests are one directory's test functions and the flags its tests
// define (name → whether it is a bool).
type dirTests struct {
	funcs []string
	flags map[string]bool
}

func newTestFuncs() *testFuncs { return &testFuncs{byDir: map[string]*dirTests{}} }

// read returns dir's tests.
func (f *testFuncs) read(dir string) *dirTests {
	if d, ok := f.byDir[dir]; ok {
		return d
	}
	d := &dirTests{flags: map[string]bool{}}
	f.byDir[dir] = d
	files, _ := filepath.Glob(filepath.Join(dir, "*_test.go"))
	fset := token.NewFileSet()
	for _, name := range files {
		file, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			continue
		}
		for _, decl := range file.Decls {
			if fn, ok := decl.(*ast.FuncDecl); ok && fn.Recv == nil {
				d.funcs = append(d.funcs, fn.Name.Name)
			}
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if pkg, ok := sel.X.(*ast.Ident); !ok || pkg.Name != "flag" {
				return true
			}
			if lit, ok := call.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if name, err := strconv.Unquote(lit.Value); err == nil {
					d.flags[name] = sel.Sel.Name == "Bool"
				}
			}
			return true
		})
	}
	return d
}

// all returns every directory of the repository with Go test files.
func (f *testFuncs) all() []string {
	var dirs []string
	_ = filepath.WalkDir(repoRoot, func(path string, e fs.DirEntry, err error) error {
		if err != nil || !e.IsDir() {
			return err
		}
		if n := e.Name(); path != repoRoot && (n == "testdata" || strings.HasPrefix(n, ".")) {
			return filepath.SkipDir
		}
		if m, _ := filepath.Glob(filepath.Join(path, "*_test.go")); len(m) > 0 {
			dirs = append(dirs, path)
		}
		return nil
	})
	return dirs
}

// matching returns the functions of dirs named kind… (a regexp of
// prefixes) that re matches, as go test matches them.
func (f *testFuncs) matching(dirs []string, kind, re string) ([]string, error) {
	rx, err := regexp.Compile(re)
	if err != nil {
		return nil, fmt.Errorf("regexp %q: %v", re, err)
	}
	prefix := regexp.MustCompile("^(" + kind + ")([^a-z]|$)")
	var got []string
	for _, d := range dirs {
		for _, fn := range f.read(d).funcs {
			if prefix.MatchString(fn) && rx.MatchString(fn) {
				got = append(got, fn)
			}
		}
	}
	return got, nil
}

// flag reports whether a test of dirs defines flag name, and whether it
// is a bool.
func (f *testFuncs) flag(dirs []string, name string) (isBool, ok bool) {
	for _, d := range dirs {
		if b, found := f.read(d).flags[name]; found {
			return b, true
		}
	}
	return false, false
}
