package fuzz

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestGlob(t *testing.T) {
	tests := []struct {
		name     string
		patterns []string
		want     []string
	}{
		{name: "glob - pattern - its files sorted - pass", patterns: []string{"../cassettes/real-configmaps-pods-*.yaml"},
			want: []string{"../cassettes/real-configmaps-pods-list-pages.yaml", "../cassettes/real-configmaps-pods-watchlist.yaml"}},
		{name: "glob - two patterns - in pattern order - pass",
			patterns: []string{"../cassettes/synthetic-*.yaml", "../cassettes/real-configmaps-expired.yaml"},
			want:     []string{"../cassettes/synthetic-configmaps-pods.yaml", "../cassettes/real-configmaps-expired.yaml"}},
		{name: "glob - no match - the pattern kept for the error - pass", patterns: []string{"nowhere/*.yaml"}, want: []string{"nowhere/*.yaml"}},
		{name: "glob - malformed - the pattern kept for the error - pass", patterns: []string{"["}, want: []string{"["}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Glob(tc.patterns...); !slices.Equal(got, tc.want) {
				t.Errorf("Glob: got %q, want %q", got, tc.want)
			}
		})
	}
}

func TestCampaignCassettes(t *testing.T) {
	two := []string{"../cassettes/real-configmaps-pods-watchlist.yaml", "../cassettes/real-configmaps-pods-list-pages.yaml"}
	many := t.TempDir() // 257 copies of a cassette, each a recording of its own
	data, err := os.ReadFile("../cassettes/real-configmaps-expired.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for k := range 257 {
		if err := os.WriteFile(filepath.Join(many, fmt.Sprintf("c%03d.yaml", k)), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name      string
		cassettes []string
		wantErr   string // "" for none
		wantIs    error
	}{
		{name: "cassettes - two paths - kept in the order given - pass", cassettes: two},
		{name: "cassettes - none - fail", wantErr: "no cassette named", wantIs: ErrNoCassette},
		{name: "cassettes - a pattern matching nothing - error names it - fail", cassettes: Glob("nowhere/*.yaml"), wantErr: "nowhere/*.yaml"},
		{name: "cassettes - too many for an input byte - fail", cassettes: []string{many}, wantErr: "257 cassettes, at most 256", wantIs: ErrNoCassette},
		{name: "cassettes - a file given twice - one cassette - pass", cassettes: []string{two[0], two[0]}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c, err := NewCampaign(Options{Cassettes: tc.cassettes})
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || (tc.wantIs != nil && !errors.Is(err, tc.wantIs)) {
					t.Fatalf("NewCampaign: got error %v, want one naming %q (is %v)", err, tc.wantErr, tc.wantIs)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewCampaign: got error %v, want none", err)
			}
			if got, want := c.Cassettes(), slices.Compact(slices.Clone(tc.cassettes)); !slices.Equal(got, want) {
				t.Errorf("Cassettes: got %q, want %q", got, want)
			}
		})
	}
}
