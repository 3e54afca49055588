package cassette

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExpand(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"b.yaml", "a.yaml", "c.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	in := func(names ...string) []string {
		out := make([]string, len(names))
		for i, n := range names {
			out[i] = filepath.Join(dir, n)
		}
		return out
	}
	tests := []struct {
		name    string
		paths   []string
		want    []string
		wantErr string
	}{
		{name: "expand - a file - as it is - pass", paths: in("c.txt"), want: in("c.txt")},
		{name: "expand - a directory - its *.yaml files in name order - pass", paths: []string{dir}, want: in("a.yaml", "b.yaml")},
		{name: "expand - a pattern - its matches in name order - pass", paths: in("*.yaml"), want: in("a.yaml", "b.yaml")},
		{name: "expand - in the order given - pass", paths: in("c.txt", "b.yaml", "a.yaml"), want: in("c.txt", "b.yaml", "a.yaml")},
		{name: "expand - a missing file - fail", paths: in("nope.yaml"), wantErr: "nope.yaml"},
		{name: "expand - a directory with no cassette - fail", paths: []string{empty}, wantErr: "empty: no *.yaml cassette in directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Expand(tc.paths...)
			if tc.wantErr != "" {
				if !errors.Is(err, ErrFormat) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Expand: got error %v, want %v naming %q", err, ErrFormat, tc.wantErr)
				}
				return
			}
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("Expand: got %v, %v, want %v", got, err, tc.want)
			}
		})
	}
}
