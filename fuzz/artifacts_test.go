package fuzz

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/internal/bubble"
)

// TestArtifactDir checks where go test's failure reports go, as an
// absolute path. That is under $LWREPLAY_ARTIFACTS when set, else under
// DefaultArtifacts in the package's directory (the working directory).
func TestArtifactDir(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	env := t.TempDir()
	out := &Outcome{Input: []byte{0, 1}}
	name := artifactName("informer", out)
	tests := []struct {
		name, env, want string
	}{
		{"artifact dir - LWREPLAY_ARTIFACTS set - under it - pass", env, filepath.Join(env, name)},
		{"artifact dir - LWREPLAY_ARTIFACTS unset - lwreplay-artifacts in the package directory - pass", "", filepath.Join(wd, DefaultArtifacts, name)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(ArtifactsEnv, tc.env)
			if got := artifactDir(t, "informer", out); got != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

// TestFailKeepsReport checks a failure under plain go test, with
// $LWREPLAY_ARTIFACTS unset. Once the test has ended, it leaves its report
// in lwreplay-artifacts/ of the package's directory. Here that is a
// temporary directory the test runs in, so the tree stays clean.
func TestFailKeepsReport(t *testing.T) {
	c, data := tombstoneInput(t)
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv(ArtifactsEnv, "")
	var out *Outcome
	err := bubble.Host(func(t *testing.T) {
		if out = c.Check(t, data); out.Failed() {
			c.Fail(t, out)
		}
	})
	if out == nil || !out.Failed() || err == nil {
		t.Fatalf("got outcome %v, hosted test error %v, want a failure that failed the test", out, err)
	}
	report := filepath.Join(dir, DefaultArtifacts, artifactName(c.target.Name, out), ReportFile)
	got, err := os.ReadFile(report)
	if err != nil {
		t.Fatalf("report %s: got error %v, want the report kept", report, err)
	}
	if !strings.Contains(string(got), "lwreplay fuzz failure") {
		t.Errorf("report %s: got %.200q, want a failure report", report, got)
	}
}
