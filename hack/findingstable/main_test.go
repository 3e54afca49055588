package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRender(t *testing.T) {
	in := `{"finding":"planted: p","client_go":"v0.35.10","gates":"WatchListClient=off","reproduced":1,"runs":1}
{"finding":"storm","client_go":"v0.35.10","gates":"WatchListClient=on","reproduced":1,"runs":1}
{"finding":"view","client_go":"v0.35.10","gates":"AtomicFIFO=absent","reproduced":6,"runs":100}
{"finding":"storm","client_go":"v0.36.6","gates":"WatchListClient=on","reproduced":0,"runs":1}
{"finding":"view","client_go":"v0.36.6","gates":"AtomicFIFO=off","reproduced":83,"runs":100}
{"finding":"view","client_go":"v0.36.6","gates":"AtomicFIFO=on","reproduced":0,"runs":100}
`
	path := filepath.Join(t.TempDir(), "f.jsonl")
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := render(path, &out); err != nil {
		t.Fatalf("render: got error %v, want none", err)
	}
	want := `| finding | gates | v0.35.10 | v0.36.6 |
|---|---|---|---|
| storm | WatchListClient=on | yes | no |
| view | AtomicFIFO=off | 6 of 100 runs (no AtomicFIFO gate) | 83 of 100 runs |
| view | AtomicFIFO=on | — (not run) | 0 of 100 runs |
| planted: p | WatchListClient=off | yes | — (not run) |
`
	if got := out.String(); got != want {
		t.Errorf("render - three findings on two versions - pass: got\n%s\nwant\n%s", got, want)
	}
	ops := `{"finding":"op: dup","client_go":"v0.35.10","versions":"op v1, controller-runtime v0.23.3","gates":"","reproduced":1,"runs":1}
{"finding":"op: dup","client_go":"v0.37.2","versions":"op v1, controller-runtime v0.25.2","gates":"","reproduced":0,"runs":1}
`
	if err := os.WriteFile(path, []byte(ops), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	if err := render(path, &out); err != nil {
		t.Fatalf("render: got error %v, want none", err)
	}
	wantOps := `| finding | gates | op v1, controller-runtime v0.23.3 | op v1, controller-runtime v0.25.2 |
|---|---|---|---|
| op: dup |  | yes | no |
`
	if got := out.String(); got != wantOps {
		t.Errorf("render - an operator's finding on its versions - pass: got\n%s\nwant\n%s", got, wantOps)
	}
	if err := os.WriteFile(path, []byte("{not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := render(path, &out); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("render - a broken line - fail: got %v, want an error naming line 1", err)
	}
}

// TestReadmeTableVersions checks that docs/client-go-versions.md's findings × versions
// table has a column for each version CI tests, in order.
func TestReadmeTableVersions(t *testing.T) {
	readme, err := os.ReadFile("../../docs/client-go-versions.md")
	if err != nil {
		t.Fatal(err)
	}
	list, err := os.ReadFile("../../.ci/client-go-versions")
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, line := range strings.Split(string(list), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			want = append(want, line)
		}
	}
	header := "| finding | gates | " + strings.Join(want, " | ") + " |\n"
	if !strings.Contains(string(readme), header) {
		t.Errorf("README findings table - versions of .ci/client-go-versions - fail: got no line %q, want one (run hack/findings.sh)", strings.TrimSpace(header))
	}
}
