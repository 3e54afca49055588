package testutil

import (
	"os"
	"testing"
)

// DirNames returns the names of the entries of dir, failing t when it
// cannot be read.
func DirNames(t testing.TB, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}
