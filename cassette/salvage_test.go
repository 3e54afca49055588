package cassette

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestItemStarts(t *testing.T) {
	tests := []struct {
		name string
		data string
		want string // lines
	}{
		{"lines - go-vcr layout, body lines like items - pass",
			"---\nversion: 2\ninteractions:\n    - id: 0\n      response:\n        body: |\n            - not an item\n    - id: 1\n      request: {}\n", "4 8"},
		{"lines - hand layout, a key after - pass",
			"version: 2\ninteractions:\n- request: {url: a}\n\n  # note\n- request: {url: b}\nextra: 1\n- x\n", "3 6"},
		{"lines - cut inside the last item - pass", "version: 2\ninteractions:\n- request: {url: a}\n- requ", "3 4"},
		{"lines - flow sequence - none - pass", "version: 2\ninteractions: []\n", ""},
		{"lines - no interactions key - none - pass", "version: 2\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, s := range itemStarts([]byte(tt.data)) {
				got = append(got, fmt.Sprint(s.line))
			}
			if strings.Join(got, " ") != tt.want {
				t.Errorf("item lines: got %q, want %q", strings.Join(got, " "), tt.want)
			}
		})
	}
}

func TestLoad_Salvage(t *testing.T) {
	const (
		head  = "version: 2\ninteractions:\n- request: {url: 'http://h/api/v1/configmaps'}\n  response: {code: 200, body: '{}'}\n"
		whole = head + "- request: {url: 'http://h/api/v1/pods'}\n  response: {code: 200, body: '{}'}\n"
	)
	tests := []struct {
		name      string
		content   string
		wantErr   string // without salvage ("" for none)
		salvaged  string // with salvage: the error, or "kept N" for success
		wantCause string // with salvage: what Damage.Cause says
	}{
		{"whole file - nothing dropped - pass", whole, "", "kept 2", ""},
		{"cut in the last body - fail, salvage drops it - pass",
			head + "- request: {url: 'http://h/api/v1/pods'}\n  response:\n    body: |\n      {\"type\":\"ADDED\",\"obj",
			"c.yaml: interaction 1 (line 5): response has no status code (is the file truncated?)", "kept 1", "interaction 1 (line 5): response has no status code"},
		{"cut in the last status code - fail, salvage drops it - pass",
			head + "- request: {url: 'http://h/api/v1/pods'}\n  response:\n    body: '{}'\n    code: 2",
			"c.yaml: interaction 1 (line 5): response status code 2 is not an HTTP status code (is the file truncated?)", "kept 1", "status code 2"},
		{"cut in a quoted string - fail, salvage drops it - pass",
			head + "- request: {url: 'http://h/api/v1/pods'}\n  response:\n    body: \"{\\\"type\\\": \\\"ADD",
			"c.yaml: interaction 1 (line 5): yaml:", "kept 1", "yaml:"},
		{"cut inside the first interaction - fail, salvage keeps none - pass",
			"version: 2\ninteractions:\n- request: {url: 'http://h/api/v1/pods'}\n  resp",
			"c.yaml: interaction 0 (line 3): yaml: line 5: could not find expected ':'", "kept 0", "yaml: line 5"},
		{"damage before the last interaction - fail, salvage fails too",
			"version: 2\ninteractions:\n- request: {url: 'http://h/a'}\n- request: {url: 'http://h/b'}\n  response: {code: 200}\n",
			"c.yaml: interaction 0 (line 3): response has no status code", "c.yaml: interaction 0 (line 3): response has no status code", ""},
		{"a complete last interaction of a newer format - fail, salvage fails too",
			head + "- request: {url: 'http://h/b'}\n  response: {code: 200, headers: {X-Lwreplay-Format: ['2']}}\n",
			"c.yaml: interaction 1 (line 5): format version 2 is newer", "c.yaml: interaction 1 (line 5): format version 2 is newer", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.yaml")
			if err := os.WriteFile(path, []byte(tt.content), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := Load(path)
			checkErr(t, err, tt.wantErr)
			if err == nil && f.Damage != nil {
				t.Errorf("Damage without salvage: got %v, want none", f.Damage)
			}
			f, err = Load(path, WithSalvage(true))
			if !strings.HasPrefix(tt.salvaged, "kept ") {
				checkErr(t, err, tt.salvaged)
				return
			}
			if err != nil {
				t.Fatalf("Load with salvage: got error %v, want none", err)
			}
			if got := fmt.Sprintf("kept %d", len(f.Interactions)); got != tt.salvaged {
				t.Errorf("interactions: got %s, want %s", got, tt.salvaged)
			}
			switch {
			case tt.wantCause == "" && f.Damage != nil:
				t.Errorf("Damage: got %v, want none", f.Damage)
			case tt.wantCause == "":
			case f.Damage == nil:
				t.Errorf("Damage: got none, want one saying %q", tt.wantCause)
			case f.Damage.Dropped != 1 || f.Damage.Kept != len(f.Interactions) || !strings.Contains(f.Damage.String(), tt.wantCause):
				t.Errorf("Damage: got %q (dropped %d, kept %d), want 1 dropped, %d kept, saying %q", f.Damage, f.Damage.Dropped, f.Damage.Kept, len(f.Interactions), tt.wantCause)
			}
		})
	}
}
