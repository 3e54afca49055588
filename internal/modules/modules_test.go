package modules

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// goMods returns the directories of the repository's go.mod files,
// relative to root, sorted.
func goMods(t *testing.T, root string) []string {
	t.Helper()
	var dirs []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == ".git" || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" {
			rel, err := filepath.Rel(root, filepath.Dir(p))
			if err != nil {
				return err
			}
			dirs = append(dirs, filepath.ToSlash(rel))
		}
		return nil
	})
	if err != nil {
		t.Fatalf("walk %s: got error %v, want none", root, err)
	}
	slices.Sort(dirs)
	return dirs
}

// lwreplayRequire matches a require of an lwreplay module in a go.mod.
var lwreplayRequire = regexp.MustCompile(`(?m)^(?:require)?\s*(` + regexp.QuoteMeta(Root) + `\S*) (v\S+)`)

// requireErrors returns what is wrong with a go.mod's requires of the
// lwreplay modules: each must be at Release (a version a release tags).
func requireErrors(gomod string) []string {
	var errs []string
	for _, m := range lwreplayRequire.FindAllStringSubmatch(gomod, -1) {
		if m[2] != Release {
			errs = append(errs, "got "+m[1]+" "+m[2]+", want "+Release)
		}
	}
	return errs
}

// TestRequiresRelease holds every module's requires of the lwreplay
// modules at Release: v0.0.0 or a pseudo-version is no tag a user can get.
func TestRequiresRelease(t *testing.T) {
	tests := []struct {
		name, gomod string
		fails       bool
	}{
		{name: "requires - the release - pass", gomod: "require (\n\t" + Root + " " + Release + "\n)\n"},
		{name: "requires - v0.0.0 - fail", gomod: "require " + Root + " v0.0.0\n", fails: true},
		{name: "requires - a pseudo-version - fail", gomod: "require (\n\t" + Root + "/fuzz/crtarget v0.0.0-00010101000000-000000000000\n)\n", fails: true},
	}
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, dir := range goMods(t, root) {
		data, err := os.ReadFile(filepath.Join(root, dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct {
			name, gomod string
			fails       bool
		}{name: "requires - " + dir + "/go.mod - pass", gomod: string(data)})
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			errs := requireErrors(tc.gomod)
			if got := len(errs) > 0; got != tc.fails {
				t.Errorf("got errors %q, want errors: %v", errs, tc.fails)
			}
		})
	}
}

// TestEveryModuleTested holds hack/test-all.sh's module list (which .ci/run
// runs) equal to the repository's go.mod files, and each published module
// among them.
func TestEveryModuleTested(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(filepath.Join(root, "hack", "test-all.sh"), "--list").Output()
	if err != nil {
		t.Fatalf("hack/test-all.sh --list: got error %v, want none", err)
	}
	listed := strings.Fields(string(out))
	slices.Sort(listed)
	if want := goMods(t, root); !slices.Equal(listed, want) {
		t.Errorf("test-all - module list - pass: got %q, want the go.mod directories %q", listed, want)
	}
	for _, dir := range Published {
		if !slices.Contains(listed, dir) {
			t.Errorf("test-all - published %s - pass: got it missing from the list, want it tested", dir)
		}
		data, err := os.ReadFile(filepath.Join(root, dir, "go.mod"))
		if err != nil {
			t.Fatal(err)
		}
		if want := "module " + Path(dir) + "\n"; !strings.HasPrefix(string(data), want) {
			t.Errorf("published %s: got go.mod starting %q, want %q", dir, strings.SplitN(string(data), "\n", 2)[0], strings.TrimSpace(want))
		}
	}
}
