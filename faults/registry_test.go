package faults

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

var kebab = regexp.MustCompile(`^[a-z][a-z0-9]*(-[a-z0-9]+)*$`)

func TestRegistry(t *testing.T) {
	doc, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("read %s: got error %v, want none", referencePath, err)
	}
	section, err := faultsSection(string(doc))
	if err != nil {
		t.Fatalf("docs/faults.md faults section: got error %v, want none", err)
	}
	seen := map[string]bool{}
	for _, f := range Registry {
		t.Run(f.Name+" - registry entry - pass", func(t *testing.T) {
			if !kebab.MatchString(f.Name) {
				t.Errorf("name: got %q, want non-empty kebab-case", f.Name)
			}
			if seen[f.Name] {
				t.Errorf("name: got %q twice, want unique", f.Name)
			}
			seen[f.Name] = true
			if strings.TrimSpace(f.Doc) == "" {
				t.Errorf("Doc: got empty, want a description")
			}
			if f.Class != Legal && f.Class != Breaking {
				t.Errorf("Class: got %v, want legal or breaking", f.Class)
			}
			if f.Point < ListPoint || f.Point > WritePoint {
				t.Errorf("Point: got %v, want a PointKind", f.Point)
			}
			names := map[string]bool{}
			for _, p := range f.Params {
				if !kebab.MatchString(p.Name) || isWhere(p.Name) || p.Name == ParamAt || names[p.Name] {
					t.Errorf("param name: got %q, want unique kebab-case, not at or a where-parameter", p.Name)
				}
				names[p.Name] = true
				if strings.TrimSpace(p.Doc) == "" {
					t.Errorf("param %s Doc: got empty, want a description", p.Name)
				}
				if len(p.Values) == 0 {
					t.Errorf("param %s Values: got none, want at least one", p.Name)
				}
				vals := map[int]bool{}
				for _, v := range p.Values {
					if v < 0 || vals[v] {
						t.Errorf("param %s Values: got %v, want unique non-negative values", p.Name, p.Values)
					}
					if !p.InRange(v) {
						t.Errorf("param %s Values: got %d, want values within its bounds, %s", p.Name, v, p.Bounds())
					}
					vals[v] = true
				}
				if p.Min < 0 || (p.Max != 0 && p.Max < p.Min) {
					t.Errorf("param %s bounds: got Min %d, Max %d, want 0 <= Min <= Max (Max 0: none)", p.Name, p.Min, p.Max)
				}
				if (p.Min > 0 || p.Max > 0) && strings.TrimSpace(p.Range) == "" {
					t.Errorf("param %s Range: got empty, want why its bounds are %s", p.Name, p.Bounds())
				}
			}
			if f.Do == nil || strings.TrimSpace(f.Do(Decision{Fault: f.Name}.Canonical())) == "" {
				t.Errorf("Do: got no words, want the action in the imperative")
			}
			if strings.TrimSpace(f.Did) == "" || strings.Count(f.Did, "%") > 1 || (strings.Contains(f.Did, "%") && !strings.Contains(f.Did, "%s")) {
				t.Errorf("Did: got %q, want a sentence with at most one %%s", f.Did)
			}
			if row := "| `" + f.Name + "` |"; !strings.Contains(section, row) {
				t.Errorf("docs/faults.md registry table: got no row starting %q, want one", row)
			}
		})
	}
	t.Run("choices - each has a byte - pass", func(t *testing.T) {
		if n, max := len(choices()), 0x100-FirstFaultByte; n == 0 || n > max {
			t.Errorf("choices: got %d, want 1..%d", n, max)
		}
	})
}

func TestLookup(t *testing.T) {
	tests := []struct {
		name   string
		fault  string
		wantOK bool
	}{
		{"lookup - registered fault - pass", "close-watch", true},
		{"lookup - last registered fault - pass", "missing-initial-events-end", true},
		{"lookup - unknown fault - fail", "close-watches", false},
		{"lookup - empty name - fail", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, ok := Lookup(tt.fault)
			if ok != tt.wantOK || (ok && f.Name != tt.fault) {
				t.Errorf("Lookup(%q): got %q, %v; want ok %v", tt.fault, f.Name, ok, tt.wantOK)
			}
		})
	}
}
