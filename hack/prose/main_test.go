package main

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string
	}{
		{"prose - one sentence - pass", "One sentence only.", []string{"One sentence only."}},
		{"prose - period then capital - pass", "First one. Second one.", []string{"First one.", "Second one."}},
		{"prose - question and bang - pass", "Why? Because! Done.", []string{"Why?", "Because!", "Done."}},
		{"prose - colon then capital - pass", "Note: This splits.", []string{"Note:", "This splits."}},
		{"prose - colon then lower case - pass", "note: this does not.", []string{"note: this does not."}},
		{"prose - period then lower case - pass", "Use e.g. this one.", []string{"Use e.g. this one."}},
		{"prose - closing backtick and paren - pass", "Run `a.B`.) Then go.", []string{"Run `a.B`.)", "Then go."}},
		{"prose - opening quote - pass", `It said so. "Then" it did.`, []string{"It said so.", `"Then" it did.`}},
		{"prose - no space after period - pass", "Call pkg.Func now.", []string{"Call pkg.Func now."}},
		{"prose - period then code - pass", "It ends. `go test` runs it.", []string{"It ends.", "`go test` runs it."}},
		{"prose - colon then code - pass", "Run it: `go test` now.", []string{"Run it: `go test` now."}},
		{"prose - trailing period - pass", "End. ", []string{"End."}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, sp := range split(tt.text) {
				got = append(got, tt.text[sp[0]:sp[1]])
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCountWords(t *testing.T) {
	tests := []struct {
		name string
		text string
		want int
	}{
		{"prose - words - pass", "three plain words", 3},
		{"prose - url skipped - pass", "see https://example.com/x now", 2},
		{"prose - punctuation alone skipped - pass", "a — b", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := countWords(tt.text); got != tt.want {
				t.Errorf("got %d, want %d", got, tt.want)
			}
		})
	}
}

func TestSources(t *testing.T) {
	dir := t.TempDir()
	md := "# Heading Is Skipped\n\nOne two three. Four five.\n\n```\ncode is skipped. Really.\n```\n\n| a | table. Skipped. |\n\n[only a link](x.md)\n\n- a list item\n- and another\n"
	goSrc := "// Package p is one. It has two.\n//\n//\tindented code. Skipped.\npackage p\n\n// see https://example.com here\nvar x int\n"
	if err := os.WriteFile(filepath.Join(dir, "a.md"), []byte(md), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.go"), []byte(goSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		get  func() ([]sentence, error)
		want []int
	}{
		{"prose - markdown skips code, tables, headings, links - pass", func() ([]sentence, error) { return mdSentences(filepath.Join(dir, "a.md")) }, []int{3, 2, 3, 2}},
		{"prose - go skips indented lines and urls - pass", func() ([]sentence, error) { return goSentences(filepath.Join(dir, "p.go")) }, []int{4, 3, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := tt.get()
			if err != nil {
				t.Fatal(err)
			}
			var got []int
			for _, x := range s {
				got = append(got, x.words)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}
