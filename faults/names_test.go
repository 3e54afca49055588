package faults

import (
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"testing"
)

// TestNames holds names.go's constants equal to the registry's names: one
// constant per entry, none for a fault the registry lacks.
func TestNames(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "names.go", nil, 0)
	if err != nil {
		t.Fatalf("parse names.go: got error %v, want none", err)
	}
	var consts []string
	ast.Inspect(f, func(n ast.Node) bool {
		if v, ok := n.(*ast.ValueSpec); ok {
			for _, e := range v.Values {
				if lit, ok := e.(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil {
						consts = append(consts, s)
					}
				}
			}
		}
		return true
	})
	names := Names()
	slices.Sort(consts)
	slices.Sort(names)
	if !slices.Equal(consts, names) {
		t.Errorf("names - constants against Registry - pass: got %q, want %q", consts, names)
	}
}
