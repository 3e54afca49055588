package fuzzcover

import (
	"debug/elf"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestBuildScope builds a fuzz test binary of a module (testdata/app) that
// uses one outside it (testdata/lib), as go test -fuzz builds it, with and
// without lwcover, and counts its coverage counters: the size of the
// section they live in. The default scope must keep the module's counters
// and drop the rest; "all" and a pattern naming the dependency must keep
// the dependency's. Each build follows one under another scope: the build
// cache must not hand one scope's packages to another.
func TestBuildScope(t *testing.T) {
	if runtime.GOOS != "linux" || (runtime.GOARCH != "amd64" && runtime.GOARCH != "arm64") {
		t.Skip("reads an ELF test binary's coverage counters: linux on amd64 or arm64")
	}
	if testing.Short() {
		t.Skip("builds test binaries")
	}
	dir := t.TempDir()
	lwcover := buildLwcover(t, dir)
	for _, m := range []string{"app", "lib"} {
		if err := os.CopyFS(filepath.Join(dir, m), os.DirFS(filepath.Join("testdata", m))); err != nil {
			t.Fatal(err)
		}
	}
	counters := func(toolexec string) int {
		t.Helper()
		bin := filepath.Join(dir, "app.test")
		args := []string{"test", "-c", "-fuzz=.", "-o", bin}
		if toolexec != "" {
			args = append(args, "-toolexec", toolexec)
		}
		cmd := exec.Command("go", append(args, ".")...)
		cmd.Dir = filepath.Join(dir, "app")
		cmd.Env = append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		f, err := elf.Open(bin)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		s := f.Section(".go.fuzzcntrs")
		if s == nil {
			return 0
		}
		return int(s.Size)
	}
	libOnly := func() int { // the dependency's counters: its own build, everything else left out
		t.Helper()
		return counters(lwcover + " --cover example.com/lib")
	}

	plain := counters("")
	module := counters(lwcover)
	all := counters(lwcover + " --cover all")
	lib := libOnly()
	moduleAndLib := counters(lwcover + " --cover module,example.com/lib")
	again := counters(lwcover)

	for _, tc := range []struct {
		name      string
		got, want int
	}{
		{"build scope - all, as go test alone - pass", all, plain},
		{"build scope - module and the dependency, as the two alone - pass", moduleAndLib, module + lib},
		{"build scope - module again, after other scopes - pass", again, module},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %d counters, want %d", tc.got, tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name string
		ok   bool
		says string
	}{
		{"build scope - module, its own counters kept - pass", module > 0, "module's counters > 0"},
		{"build scope - module, the dependency's dropped - pass", lib > 0 && module+lib <= plain, "the dependency's counters > 0, and module's + its ≤ go test's"},
		{"build scope - module, the standard library's dropped - pass", module+lib < plain/10, "module's + the dependency's < a tenth of go test's"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ok {
				t.Errorf("got module %d, dependency %d, go test alone %d counters; want %s", module, lib, plain, tc.says)
			}
		})
	}
}

// buildLwcover builds cmd/lwcover into dir and returns its path.
func buildLwcover(t *testing.T, dir string) string {
	t.Helper()
	lwcover := filepath.Join(dir, "lwcover")
	build := exec.Command("go", "build", "-o", lwcover, "../../cmd/lwcover")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building lwcover: %v\n%s", err, out)
	}
	return lwcover
}

// TestLwcoverUsage runs lwcover as the go command would not: with a bad
// scope, or with no tool. Each is a usage error (exit 2) naming what is
// wrong; a tool's own exit status comes back as it was.
func TestLwcoverUsage(t *testing.T) {
	if testing.Short() || runtime.GOOS == "windows" {
		t.Skip("builds lwcover, and runs true and false as its tools")
	}
	lwcover := buildLwcover(t, t.TempDir())
	for _, tc := range []struct {
		name string
		args []string
		code int
		says string // in its standard error
	}{
		{"lwcover - a relative pattern - fail", []string{"--cover", "./...", "true"}, 2, `--cover: scope: item 1 "./..."`},
		{"lwcover - an empty scope - fail", []string{"--cover=", "true"}, 2, "--cover: scope: empty"},
		{"lwcover - no tool - fail", nil, 2, "no tool to run"},
		{"lwcover - a tool that fails - its status - fail", []string{"false"}, 1, ""},
		{"lwcover - a tool that succeeds - pass", []string{"true"}, 0, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cmd := exec.Command(lwcover, tc.args...)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			err := cmd.Run()
			code := 0
			var exit *exec.ExitError
			switch {
			case errors.As(err, &exit):
				code = exit.ExitCode()
			case err != nil:
				t.Fatal(err)
			}
			if code != tc.code || !strings.Contains(stderr.String(), tc.says) {
				t.Errorf("got exit %d, stderr %q; want exit %d, stderr saying %q", code, stderr.String(), tc.code, tc.says)
			}
		})
	}
}
