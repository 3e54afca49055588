package fuzzcover

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestRewrite(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"rewrite - go test -fuzz's flag - pass",
			[]string{"-o", "x.a", "-p", "example.com/op", "-c=2", "-d=libfuzzer", "-nolocalimports", "/src/op/a.go"},
			[]string{"-o", "x.a", "-p", "example.com/op", "-c=2", "-nolocalimports", "/src/op/a.go"}},
		{"rewrite - among other debug settings - pass",
			[]string{"-d=checkptr=0,libfuzzer,ssa/check/on", "a.go"},
			[]string{"-d=checkptr=0,ssa/check/on", "a.go"}},
		{"rewrite - set to a value - pass",
			[]string{"-d=libfuzzer=1", "a.go"},
			[]string{"a.go"}},
		{"rewrite - no coverage flag - pass",
			[]string{"-d=checkptr", "-p", "libfuzzer", "a.go"},
			[]string{"-d=checkptr", "-p", "libfuzzer", "a.go"}},
		{"rewrite - a setting only named alike - pass",
			[]string{"-d=libfuzzerx", "a.go"},
			[]string{"-d=libfuzzerx", "a.go"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Rewrite(tc.args); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestVersionLine(t *testing.T) {
	for _, tc := range []struct {
		name, line, want string
	}{
		{"version line - a release compiler - pass", "compile version go1.26.8\n", "compile version go1.26.8 lwcover=abc\n"},
		{"version line - a release compiler with experiments - pass", "compile version go1.26.8 X:nocoverageredesign\n", "compile version go1.26.8 X:nocoverageredesign lwcover=abc\n"},
		{"version line - a development compiler - pass", "compile version devel go1.27-1a2b buildID=x/y\n", "compile version devel go1.27-1a2b buildID=x/y-lwcoverabc\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := VersionLine(tc.line, "abc"); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestToolPackage(t *testing.T) {
	args := []string{"-o", "/tmp/b1/_pkg_.a", "-p", "example.com/op", "-d=libfuzzer", "-pack", "/src/op/a.go", "/src/op/a_test.go"}
	for _, tc := range []struct {
		name string
		tool Tool
		want Package
	}{
		{"tool package - a package with its tests, as the go command names it - pass",
			Tool{Path: "compile", Args: args, ImportPath: "example.com/op [example.com/op.test]"}, Package{"example.com/op", "/src/op"}},
		{"tool package - no TOOLEXEC_IMPORTPATH, -p read - pass",
			Tool{Path: "compile", Args: args}, Package{"example.com/op", "/src/op"}},
		{"tool package - an import path ending in .go - pass",
			Tool{Path: "compile", Args: []string{"-p", "example.com/x.go", "-o", "/tmp/b1/_pkg_.a", "/src/x/a.go"}}, Package{"example.com/x.go", "/src/x"}},
		{"tool package - no Go file - pass",
			Tool{Path: "compile", Args: []string{"-p", "example.com/op"}}, Package{"example.com/op", ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.tool.Package(); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestFindModuleDir(t *testing.T) {
	root := t.TempDir()
	deep := filepath.Join(root, "op", "controllers", "sub")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "op", "go.mod"), []byte("module example.com/op\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, dir, want string
	}{
		{"find module dir - below the module's root - pass", deep, filepath.Join(root, "op")},
		{"find module dir - at its root - pass", filepath.Join(root, "op"), filepath.Join(root, "op")},
		{"find module dir - outside any module - pass", root, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := FindModuleDir(tc.dir)
			if got != tc.want && !(tc.want == "" && got != "" && !within(root, got)) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestRunNoTool(t *testing.T) {
	s, _ := ParseScope(DefaultScope)
	var out, errOut bytes.Buffer
	err := Run(s, Env{}, Tool{}, nil, &out, &errOut)
	if err == nil || !strings.Contains(err.Error(), "no tool to run") {
		t.Errorf("run - no tool - fail: got %v, want an error saying there is no tool to run", err)
	}
}
