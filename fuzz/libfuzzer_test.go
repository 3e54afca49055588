package fuzz

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestBesideBinary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, name := range []string{"real-b.yaml", "real-a.yaml", "other.yaml"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	here := "../cassettes/real-configmaps-expired.yaml"
	tests := []struct {
		name      string
		cassettes []string
		want      []string
	}{
		{name: "cassettes beside the binary - path found from the working directory - kept - pass",
			cassettes: []string{here}, want: []string{here}},
		{name: "cassettes beside the binary - unmatched pattern - files of its base name beside the binary, sorted - pass",
			cassettes: []string{"../nowhere/real-*.yaml"}, want: []string{filepath.Join(dir, "real-a.yaml"), filepath.Join(dir, "real-b.yaml")}},
		{name: "cassettes beside the binary - missing file - the one beside the binary - pass",
			cassettes: []string{"../../nowhere/other.yaml"}, want: []string{filepath.Join(dir, "other.yaml")}},
		{name: "cassettes beside the binary - missing everywhere - kept for the loader's error - pass",
			cassettes: []string{"../nowhere/gone.yaml"}, want: []string{"../nowhere/gone.yaml"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := besideBinary(tc.cassettes, dir); !slices.Equal(got, tc.want) {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
