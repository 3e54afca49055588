package faults

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/faults.md's registry table from registryTable; append new fault codes to testdata/choice-codes.txt")

// referencePath is the faults reference, docs/faults.md, which carries the
// registry table between the faults markers.
const referencePath = "../docs/faults.md"

const (
	beginMarker = "<!-- faults:begin -->\n"
	endMarker   = "<!-- faults:end -->\n"
)

// faultsSection returns the text between the faults markers.
func faultsSection(doc string) (string, error) {
	_, after, ok := strings.Cut(doc, beginMarker)
	if !ok {
		return "", fmt.Errorf("no line %q", strings.TrimSpace(beginMarker))
	}
	section, _, ok := strings.Cut(after, endMarker)
	if !ok {
		return "", fmt.Errorf("no line %q after the begin marker", strings.TrimSpace(endMarker))
	}
	return section, nil
}

// replaceSection returns doc with the text between the markers replaced.
func replaceSection(doc, section string) (string, error) {
	before, after, ok := strings.Cut(doc, beginMarker)
	if !ok {
		return "", fmt.Errorf("no line %q", strings.TrimSpace(beginMarker))
	}
	_, rest, ok := strings.Cut(after, endMarker)
	if !ok {
		return "", fmt.Errorf("no line %q after the begin marker", strings.TrimSpace(endMarker))
	}
	return before + beginMarker + section + endMarker + rest, nil
}

func TestReferenceTable(t *testing.T) {
	data, err := os.ReadFile(referencePath)
	if err != nil {
		t.Fatalf("read %s: got error %v, want none", referencePath, err)
	}
	want := registryTable()
	if *update {
		out, err := replaceSection(string(data), want)
		if err != nil {
			t.Fatalf("%s: got error %v, want the faults markers", referencePath, err)
		}
		if err := os.WriteFile(referencePath, []byte(out), 0o644); err != nil {
			t.Fatalf("write %s: got error %v, want none", referencePath, err)
		}
		data = []byte(out)
	}
	got, err := faultsSection(string(data))
	if err != nil {
		t.Fatalf("%s: got error %v, want the faults markers", referencePath, err)
	}
	if got != want {
		t.Errorf("reference table - docs/faults.md stale - fail: got\n%s\nwant\n%s\n(run go test ./faults -run TestReferenceTable -update)", got, want)
	}
}

func TestRegistryTable(t *testing.T) {
	table := registryTable()
	lines := strings.Split(strings.TrimSuffix(table, "\n"), "\n")
	tests := []struct {
		name string
		line int
		want string
	}{
		{"table - header - pass", 0, "| name | class | acts at | parameters (fuzzed values; bounds) | what it does | kept up (from=N) |"},
		{"table - fault without parameters - pass", 2, "| `drop-bookmark` | legal | watch frame | — | " + Registry[0].Doc + " | legal: " + Registry[0].PersistsWhy + " |"},
		{"table - fault with a parameter - pass", 4, "| `close-watch` | legal | WATCH request | `after` (0, 1, 2, 5; 0 or more): events sent before the close (0: none) | " +
			Registry[2].Doc + " | legal: " + Registry[2].PersistsWhy + " |"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if len(lines) != len(Registry)+2 {
				t.Fatalf("lines: got %d, want %d", len(lines), len(Registry)+2)
			}
			if lines[tt.line] != tt.want {
				t.Errorf("line %d: got %q, want %q", tt.line, lines[tt.line], tt.want)
			}
		})
	}
}

func TestCell(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"cell - pipe escaped - pass", "a|b", `a\|b`},
		{"cell - newline flattened - pass", "a\nb", "a b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := cell(tt.in); got != tt.want {
				t.Errorf("cell(%q): got %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}
