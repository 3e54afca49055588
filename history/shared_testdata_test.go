package history_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sharedTestdata is the top-level testdata directory: the regression
// cassettes the packages' tests share, indexed by its README.md.
const sharedTestdata = "../testdata"

// listedFiles returns the first column of the README's table: the files
// it describes.
func listedFiles(t *testing.T) []string {
	t.Helper()
	readme, err := os.ReadFile(filepath.Join(sharedTestdata, "README.md"))
	if err != nil {
		t.Fatalf("read README: got error %v, want none", err)
	}
	var out []string
	for _, line := range strings.Split(string(readme), "\n") {
		cell, ok := strings.CutPrefix(line, "| `")
		if !ok {
			continue
		}
		if k := strings.IndexByte(cell, '`'); k > 0 {
			out = append(out, cell[:k])
		}
	}
	return out
}

func TestSharedTestdataListed(t *testing.T) {
	listed := listedFiles(t)
	var present []string
	err := filepath.WalkDir(sharedTestdata, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(sharedTestdata, p)
		if rel != "README.md" {
			present = append(present, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatalf("walk %s: got error %v, want none", sharedTestdata, err)
	}
	if len(listed) == 0 || len(present) == 0 {
		t.Fatalf("got %d files listed and %d present, want some", len(listed), len(present))
	}
	for _, f := range present {
		if !slices.Contains(listed, f) {
			t.Errorf("%s - present - fail: got no row in testdata/README.md, want one", f)
		}
	}
	for _, f := range listed {
		if !slices.Contains(present, f) {
			t.Errorf("%s - listed - fail: got no such file, want the file the README lists", f)
		}
	}
	for _, f := range present {
		dir, name := filepath.Split(f)
		switch dir {
		case "malformed/":
			if !slices.ContainsFunc(malformedFixtures, func(m malformedFixture) bool { return m.file == name }) {
				t.Errorf("%s - malformed - fail: got no row in malformedFixtures, want the error it must give", f)
			}
		default:
			if _, err := loadAndBuild(filepath.Join(sharedTestdata, f)); err != nil {
				t.Errorf("%s - shared cassette - fail: got error %v, want it to load and build", f, err)
			}
		}
	}
}
