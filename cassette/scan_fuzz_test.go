package cassette

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzScan holds the streaming reader to the whole-document decoder. What
// both read, they read alike, bodies left in the file included. A file the
// decoder reads, the reader reads too. Neither may panic.
func FuzzScan(f *testing.F) {
	for _, glob := range []string{"../cassettes/*.yaml", "../testdata/*/*.yaml"} {
		paths, _ := filepath.Glob(glob)
		for _, p := range paths {
			if data, err := os.ReadFile(p); err == nil && len(data) < 64<<10 {
				f.Add(data)
			}
		}
	}
	path := filepath.Join(f.TempDir(), "f.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, werr := decode(path, data)
		for _, lazy := range []bool{false, true} {
			old := lazyMin
			lazyMin = 1
			got, gerr := scanFile(path, loadOptions{lazy: lazy})
			lazyMin = old
			switch {
			case isLayout(gerr):
				continue // decoded whole by Load
			case werr == nil && gerr != nil:
				t.Fatalf("lazy %v: scan: got error %v, want none (the whole document decodes)", lazy, gerr)
			case werr == nil:
				sameFile(t, got, want)
			}
		}
	})
}

func isLayout(err error) bool { return err == errLayout }
