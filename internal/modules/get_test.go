package modules

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/internal/testutil"
)

// userMain is a user's program: it imports fuzz/crtarget and uses it.
const userMain = `package main

import (
	"fmt"

	"github.com/lwreplay/lwreplay/fuzz/crtarget"
)

func main() { fmt.Println(len(crtarget.Invariants())) }
`

// TestGetFromProxy proves a user can go get fuzz/crtarget at the release:
// it writes a file module proxy of the working tree (the root module and
// fuzz/crtarget at Release), then a fresh module gets crtarget from it and
// builds a main that imports it. Third-party modules come from the module
// cache or the Go module proxy, lwreplay's from the file proxy only. A
// crtarget whose go.mod requires the root at an untagged version fails.
func TestGetFromProxy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a user's module on controller-runtime: not in -short")
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		// requires is the root module's version crtarget's go.mod requires
		// ("": as in the working tree)
		requires string
		fails    bool
	}{
		{name: "go get - fuzz/crtarget at the release, as in the working tree - pass"},
		{name: "go get - fuzz/crtarget requiring the root at v0.0.0 - fail", requires: "v0.0.0", fails: true},
		{name: "go get - fuzz/crtarget requiring the root at an untagged pseudo-version - fail",
			requires: "v0.0.0-20260101000000-0123456789ab", fails: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := getAndBuild(t, root, tc.requires)
			if err != nil && testutil.ProxyUnreachable(out) && strings.Contains(out, "proxy.golang.org") && !tc.fails {
				t.Skipf("SKIPPED: the Go module proxy is unreachable: %v\n%s", err, out)
			}
			if tc.fails {
				if err == nil {
					t.Fatalf("go get and go build: got success, want an error: the root module at %s is in no proxy\n%s", tc.requires, out)
				}
				if !strings.Contains(out, Root+"@"+tc.requires) {
					t.Errorf("go get: got error %v, want one naming %s@%s\n%s", err, Root, tc.requires, out)
				}
				t.Logf("failed as it must: %s", out[strings.LastIndex(strings.TrimSpace(out), "\n")+1:])
				return
			}
			if err != nil {
				t.Fatalf("go get and go build: got error %v, want none\n%s", err, out)
			}
		})
	}
}

// getAndBuild writes the file proxy (crtarget's go.mod requiring the root
// at requires unless it is ""), then in a fresh module runs go mod init,
// go get of crtarget at Release and go build. It checks the versions the
// build selected; it returns the go command's output and its first error.
func getAndBuild(t *testing.T, root, requires string) (string, error) {
	t.Helper()
	// not t.TempDir: a subtest's name may hold a comma, GOPROXY's separator
	tmp, err := os.MkdirTemp("", "lwreplay-modules-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(tmp) })
	proxy, user, cache := filepath.Join(tmp, "proxy"), filepath.Join(tmp, "user"), filepath.Join(tmp, "modcache")
	src := root
	if requires != "" {
		// a copy of the two modules, crtarget's require rewritten
		src = filepath.Join(tmp, "src")
		copyTree(t, filepath.Join(root, "go.mod"), filepath.Join(src, "go.mod"))
		copyTree(t, filepath.Join(root, "fuzz", "crtarget"), filepath.Join(src, "fuzz", "crtarget"))
		mod := filepath.Join(src, "fuzz", "crtarget", "go.mod")
		data, err := os.ReadFile(mod)
		if err != nil {
			t.Fatal(err)
		}
		re := regexp.MustCompile(`(?m)^(\s*` + regexp.QuoteMeta(Root) + `) ` + regexp.QuoteMeta(Release) + `$`)
		if !re.Match(data) {
			t.Fatalf("%s: got no require of %s %s to rewrite", mod, Root, Release)
		}
		if err := os.WriteFile(mod, re.ReplaceAll(data, []byte("${1} "+requires)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, dir := range []string{".", "fuzz/crtarget"} {
		if err := writeProxy(proxy, src, dir, Release); err != nil {
			t.Fatalf("proxy of %s: got error %v, want none", dir, err)
		}
	}
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "main.go"), []byte(userMain), 0o644); err != nil {
		t.Fatal(err)
	}
	// the go.sum lines of the repository's modules: the third-party
	// modules are checked against them, with no checksum database needed
	sums, err := goSums(root, ".", "fuzz/crtarget")
	if err != nil {
		t.Fatal(err)
	}
	shared, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatalf("go env GOMODCACHE: got error %v, want none", err)
	}
	env := append(os.Environ(),
		"GOWORK=off", "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local",
		// lwreplay from the file proxy only; the rest from the module
		// cache's downloads, else the Go module proxy
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(filepath.Join(strings.TrimSpace(string(shared)), "cache", "download"))+",https://proxy.golang.org",
		"GONOSUMDB="+Root, "GOPRIVATE=", "GONOPROXY=",
		// a module cache of its own: the shared one would keep the first
		// run's lwreplay v0.1.0 for ever
		"GOMODCACHE="+cache)
	t.Cleanup(func() {
		cmd := exec.Command("go", "clean", "-modcache")
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("go clean -modcache: got error %v, want none\n%s", err, out)
		}
	})
	var all bytes.Buffer
	run := func(args ...string) (string, error) {
		cmd := exec.Command("go", args...)
		cmd.Dir, cmd.Env = user, env
		out, err := cmd.CombinedOutput()
		all.WriteString("$ go " + strings.Join(args, " ") + "\n" + string(out))
		return strings.TrimSpace(string(out)), err
	}
	if _, err := run("mod", "init", "example.com/user"); err != nil {
		return all.String(), err
	}
	if err := os.WriteFile(filepath.Join(user, "go.sum"), []byte(sums), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run("get", Path("fuzz/crtarget")+"@"+Release); err != nil {
		return all.String(), err
	}
	if _, err := run("build", "-trimpath", "-o", filepath.Join(tmp, "user.bin"), "."); err != nil {
		return all.String(), err
	}
	for _, c := range []struct{ module, want string }{
		{Root, Release},
		{Path("fuzz/crtarget"), Release},
		{"k8s.io/client-go", selected(t, root, "k8s.io/client-go")},
	} {
		if got, err := run("list", "-m", "-f", "{{.Version}}", c.module); err != nil || got != c.want {
			t.Errorf("%s in the user's module: got %q (error %v), want %s", c.module, got, err, c.want)
		}
	}
	return all.String(), nil
}

// selected returns the version of module the root module selects on its
// own go.mod.
func selected(t *testing.T, root, module string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m", "-f", "{{.Version}}", module)
	cmd.Dir, cmd.Env = root, append(os.Environ(), "GOWORK=off")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m %s: got error %v, want its version", module, err)
	}
	return strings.TrimSpace(string(out))
}

// copyTree copies the file or directory from to to.
func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, p)
		if err != nil {
			return err
		}
		dst := filepath.Join(to, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s: got error %v, want none", from, err)
	}
}
