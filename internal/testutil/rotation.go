package testutil

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
)

// SplitRotation writes the cassette at src into dir as two parts of one
// recording, as a recorder rotates it. name.yaml holds the interactions
// before the first watch. Its first rotation (cassette.RotatedName)
// holds the rest.
func SplitRotation(t testing.TB, src, dir, name string) (first, second string) {
	t.Helper()
	f, err := cassette.Load(src)
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for k < len(f.Interactions) && !strings.Contains(f.Interactions[k].URL, "watch=true") {
		k++
	}
	first = filepath.Join(dir, name+".yaml")
	second = cassette.RotatedName(first, 1)
	for path, its := range map[string][]cassette.Interaction{first: f.Interactions[:k], second: f.Interactions[k:]} {
		if err := (&cassette.File{Interactions: its}).Save(path); err != nil {
			t.Fatal(err)
		}
	}
	return first, second
}
