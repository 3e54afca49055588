package fuzzcover

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestParseScope(t *testing.T) {
	for _, tc := range []struct {
		name, spec string
		want       string // an error's words; "" for none
	}{
		{"scope - module - pass", "module", ""},
		{"scope - all - pass", "all", ""},
		{"scope - module and patterns - pass", "module, sigs.k8s.io/controller-runtime/...,k8s.io/client-go/tools/cache", ""},
		{"scope - empty - fail", " ", "empty"},
		{"scope - an empty item - fail", "module,,all", `item 2 ""`},
		{"scope - a relative pattern - fail", "./...", `item 1 "./..."`},
		{"scope - a flag - fail", "-all", `item 1 "-all"`},
		{"scope - a space inside an item - fail", "module,a b", `item 2 "a b"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseScope(tc.spec)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("got error %v, want none", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("got error %v, want one saying %q", err, tc.want)
			case tc.want == "" && s.String() != tc.spec:
				t.Errorf("got String %q, want %q", s.String(), tc.spec)
			}
		})
	}
}

func TestCovers(t *testing.T) {
	mod := filepath.FromSlash("/src/op")
	for _, tc := range []struct {
		name, spec string
		pkg        Package
		moduleDir  string
		want       bool
	}{
		{"covers - module, a package of it - pass", "module", Package{"example.com/op/controllers", "/src/op/controllers"}, mod, true},
		{"covers - module, its root package - pass", "module", Package{"example.com/op", "/src/op"}, mod, true},
		{"covers - module, a dependency in the module cache - pass", "module", Package{"sigs.k8s.io/controller-runtime/pkg/manager", "/home/u/go/pkg/mod/sigs.k8s.io/controller-runtime@v0.23.3/pkg/manager"}, mod, false},
		{"covers - module, a sibling directory sharing its prefix - pass", "module", Package{"example.com/op2", "/src/op2"}, mod, false},
		{"covers - module, a vendored dependency - pass", "module", Package{"k8s.io/client-go/rest", "/src/op/vendor/k8s.io/client-go/rest"}, mod, false},
		{"covers - module, go test's main package in its work directory - pass", "module", Package{"main", "/tmp/go-build1/b001"}, mod, false},
		{"covers - module, no module directory - pass", "module", Package{"example.com/op", "/src/op"}, "", false},
		{"covers - module, a package with no Go file - pass", "module", Package{"example.com/op/empty", ""}, mod, false},
		{"covers - a pattern with ..., a package under it - pass", "sigs.k8s.io/controller-runtime/...", Package{"sigs.k8s.io/controller-runtime/pkg/manager", "/m/x"}, mod, true},
		{"covers - a pattern with ..., its root - pass", "sigs.k8s.io/controller-runtime/...", Package{"sigs.k8s.io/controller-runtime", "/m/x"}, mod, true},
		{"covers - a pattern with ..., a module sharing its prefix - pass", "sigs.k8s.io/controller-runtime/...", Package{"sigs.k8s.io/controller-runtime-tools", "/m/x"}, mod, false},
		{"covers - an exact pattern, a subpackage - pass", "k8s.io/client-go/tools/cache", Package{"k8s.io/client-go/tools/cache/synctrack", "/m/x"}, mod, false},
		{"covers - a pattern with a dot, taken literally - pass", "k8s.io/client-go", Package{"k8sXio/client-go", "/m/x"}, mod, false},
		{"covers - all, anything - pass", "all", Package{"encoding/json", "/usr/local/go/src/encoding/json"}, mod, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseScope(tc.spec)
			if err != nil {
				t.Fatal(err)
			}
			tc.pkg.Dir = filepath.FromSlash(tc.pkg.Dir)
			if got := s.Covers(tc.pkg, tc.moduleDir); got != tc.want {
				t.Errorf("got Covers(%+v, %q) %v, want %v", tc.pkg, tc.moduleDir, got, tc.want)
			}
		})
	}
}

func TestScopeID(t *testing.T) {
	module, _ := ParseScope("module")
	all, _ := ParseScope("all")
	for _, tc := range []struct {
		name string
		a, b string
		same bool
	}{
		{"scope id - same scope, same module - pass", module.ID("/src/op"), module.ID("/src/op"), true},
		{"scope id - another scope - pass", module.ID("/src/op"), all.ID("/src/op"), false},
		{"scope id - another module - pass", module.ID("/src/op"), module.ID("/src/other"), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.a == tc.b; got != tc.same {
				t.Errorf("got IDs %q and %q equal %v, want %v", tc.a, tc.b, got, tc.same)
			}
		})
	}
}
