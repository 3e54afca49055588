package fuzz

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/cassette"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

func TestCassettesAreRecordings(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	expired := filepath.Join(dir, "a.yaml")
	data, err := os.ReadFile("../cassettes/real-configmaps-expired.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(expired, data, 0o644); err != nil {
		t.Fatal(err)
	}
	x, x1 := testutil.SplitRotation(t, "../cassettes/real-configmaps-pods-list-pages.yaml", dir, "x")
	t.Run("recorded resources - a file and a two-part recording - two recordings - pass", func(t *testing.T) {
		got, err := RecordedResources([]string{dir})
		if err != nil {
			t.Fatalf("RecordedResources: got error %v, want none", err)
		}
		var parts []string
		for _, r := range got {
			parts = append(parts, fmt.Sprintf("%s: %q %v", r.Resource, r.Recordings, r.Cassettes))
		}
		want := fmt.Sprintf("configmaps.v1: [%q %q] [%s %s %s]; pods.v1: [%q] [%s %s]",
			expired, x+" "+x1, expired, x, x1, x+" "+x1, x, x1)
		if s := strings.Join(parts, "; "); s != want {
			t.Errorf("recorded: got %s, want %s", s, want)
		}
	})
	t.Run("campaign - a file and a two-part recording - two cassettes, the parts one - pass", func(t *testing.T) {
		c, err := NewCampaign(Options{Cassettes: []string{x1, expired, x}})
		if err != nil {
			t.Fatalf("NewCampaign: got error %v, want none", err)
		}
		if got, want := fmt.Sprint(c.Cassettes()), fmt.Sprint([]string{x + " " + x1, expired}); got != want {
			t.Errorf("cassettes: got %s, want %s", got, want)
		}
		if got := len(c.cassettes[0].History.Logs[1].Events); got == 0 {
			t.Errorf("configmaps events of the two parts: got none, want the watch's of the second part")
		}
	})
	t.Run("campaign - a file cut short - refused - fail", func(t *testing.T) {
		_, err := NewCampaign(Options{Cassettes: []string{"../testdata/malformed/cut_body.yaml"}})
		if !errors.Is(err, cassette.ErrFormat) || !strings.Contains(err.Error(), "interaction 1 (line 39)") {
			t.Errorf("NewCampaign: got error %v, want %v naming interaction 1 (line 39)", err, cassette.ErrFormat)
		}
	})
	t.Run("campaign - a file cut short, salvaged - its complete interactions - pass", func(t *testing.T) {
		c, err := NewCampaign(Options{Cassettes: []string{"../testdata/malformed/cut_body.yaml"}, Salvage: true})
		if err != nil {
			t.Fatalf("NewCampaign: got error %v, want none", err)
		}
		if l := c.cassettes[0].History.Logs[0]; len(l.Initial) != 10 || l.Watches != 0 {
			t.Errorf("history: got %d objects and %d watches, want the LIST's 10 and no watch", len(l.Initial), l.Watches)
		}
	})
}
