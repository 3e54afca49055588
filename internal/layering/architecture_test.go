package layering

import (
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// archLayers reads the layer table of ARCHITECTURE.md's "Layers" section:
// each row's rank, layer name and the package prefixes it names in
// backquotes ("fuzz/..." and "internal/*" name the prefix itself).
func archLayers(doc string) ([]Row, error) {
	_, after, ok := strings.Cut(doc, "\n## Layers\n")
	if !ok {
		return nil, fmt.Errorf("no \"## Layers\" section")
	}
	section, _, _ := strings.Cut(after, "\n## ")
	tick := regexp.MustCompile("`([^`]+)`")
	var rows []Row
	for _, line := range strings.Split(section, "\n") {
		cells := strings.Split(strings.Trim(line, "| "), "|")
		if !strings.HasPrefix(line, "|") || len(cells) != 3 {
			continue
		}
		rank, err := strconv.Atoi(strings.TrimSpace(cells[0]))
		if err != nil {
			continue // the header and the rule under it
		}
		layer := strings.TrimSpace(cells[1])
		for _, m := range tick.FindAllStringSubmatch(cells[2], -1) {
			p := strings.TrimSuffix(strings.TrimSuffix(m[1], "/..."), "/*")
			rows = append(rows, Row{rank, layer, p})
		}
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("the Layers section holds no table rows")
	}
	return rows, nil
}

// TestArchitectureLayers holds ARCHITECTURE.md's layer table equal to Rows:
// the map a newcomer reads is the table the layering test enforces.
func TestArchitectureLayers(t *testing.T) {
	b, err := os.ReadFile("../../ARCHITECTURE.md")
	if err != nil {
		t.Fatalf("reading ARCHITECTURE.md: got error %v, want none", err)
	}
	doc, err := archLayers(string(b))
	if err != nil {
		t.Fatalf("ARCHITECTURE.md: got %v, want its layer table", err)
	}
	key := func(r Row) string { return fmt.Sprintf("%d %s %s", r.Rank, r.Layer, r.Prefix) }
	inDoc := map[string]bool{}
	for _, r := range doc {
		inDoc[key(r)] = true
	}
	inRows := map[string]bool{}
	for _, r := range Rows {
		inRows[key(r)] = true
		if !inDoc[key(r)] {
			t.Errorf("architecture - row %q - fail: got it missing from ARCHITECTURE.md's Layers table, want it there", key(r))
		}
	}
	for _, r := range doc {
		if !inRows[key(r)] {
			t.Errorf("architecture - row %q - fail: got it in ARCHITECTURE.md's Layers table, want it in layering.Rows too", key(r))
		}
	}
}

// TestArchLayers shows archLayers reads a table and refuses a document
// without one.
func TestArchLayers(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		want      []Row
		wantErr   bool
	}{
		{"archLayers - a table - pass", "# A\n\n## Layers\n\n| Rank | Layer | Packages |\n|---|---|---|\n| 0 | base | `cassette`, `internal/*` helpers |\n| 4 | fuzzing | `fuzz/...` |\n\n## Rules\n| 9 | x | `y` |\n",
			[]Row{{0, "base", "cassette"}, {0, "base", "internal"}, {4, "fuzzing", "fuzz"}}, false},
		{"archLayers - no section - fail", "# A\n", nil, true},
		{"archLayers - no rows - fail", "## Layers\n\ntext\n", nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := archLayers(tc.doc)
			if (err != nil) != tc.wantErr {
				t.Fatalf("got error %v, want error %v", err, tc.wantErr)
			}
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
		})
	}
}
