package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/timeline/timelinetest"
)

func TestInspectHTML(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name     string
		out      string
		wantCode int
		wantErr  string
	}{
		{name: "inspect --html - shipped cassette - pass", out: filepath.Join(dir, "t.html"), wantCode: 0},
		{name: "inspect --html - directory missing - fail", out: filepath.Join(dir, "nope", "t.html"), wantCode: 1, wantErr: filepath.Join(dir, "nope", "t.html")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCLI("inspect", "--html", tc.out, shipped)
			if code != tc.wantCode {
				t.Fatalf("exit code: got %d, want %d; stderr %s", code, tc.wantCode, stderr)
			}
			if tc.wantErr != "" {
				if !strings.Contains(stderr, tc.wantErr) {
					t.Errorf("stderr: got %q, want it to name %s", stderr, tc.wantErr)
				}
				return
			}
			html, err := os.ReadFile(tc.out)
			if err != nil {
				t.Fatalf("page: got error %v, want the file", err)
			}
			if ext := timelinetest.ExternalRefs(string(html)); len(ext) > 0 {
				t.Errorf("external references: got %q, want none", ext)
			}
			p, err := timelinetest.Parse(string(html))
			if err != nil {
				t.Fatalf("Parse: got error %v, want the page's data", err)
			}
			if got := p.Counts()["event"]; got == 0 {
				t.Errorf("event marks: got 0, want the cassette's events")
			}
		})
	}
}
