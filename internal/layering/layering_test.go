package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// module is the root module's path.
const module = "github.com/lwreplay/lwreplay"

// rootImports lists the root module's packages and the lwreplay packages
// each imports, by go list, paths relative to the module. Test files are
// left out: an external test package may import any layer (history's
// tests build histories with synth) without a cycle.
func rootImports(t *testing.T) map[string][]string {
	t.Helper()
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports", "./...")
	cmd.Dir = "../.."
	cmd.Env = append(os.Environ(), "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list ./...: got error %v, want none\n%s", err, stderr.String())
	}
	rel := func(p string) (string, bool) {
		if p == module {
			return ".", true
		}
		r, ok := strings.CutPrefix(p, module+"/")
		return r, ok
	}
	imports := map[string][]string{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p struct {
			ImportPath string
			Imports    []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatalf("go list output: got error %v, want JSON", err)
		}
		pkg, ok := rel(p.ImportPath)
		if !ok {
			t.Fatalf("go list: got package %s, want one of %s", p.ImportPath, module)
		}
		imports[pkg] = nil
		for _, i := range p.Imports {
			if dep, ok := rel(i); ok {
				imports[pkg] = append(imports[pkg], dep)
			}
		}
	}
	return imports
}

func TestLayering(t *testing.T) {
	tests := []struct {
		name    string
		imports map[string][]string
		want    string // a substring of the error; "" for none
	}{
		{name: "layering - replayer imports history - pass",
			imports: map[string][]string{"replayer": {"history", "faults"}}},
		{name: "layering - a new replayer subpackage imports replayer - pass",
			imports: map[string][]string{"replayer/newpart": {"replayer", "replayer/internal/status"}}},
		{name: "layering - a new fuzz subpackage imports mutate - pass",
			imports: map[string][]string{"fuzz/newpart/deeper": {"mutate", "fuzz/harness"}}},
		{name: "layering - history imports replayer - fail",
			imports: map[string][]string{"history": {"replayer"}},
			want:    "got history importing replayer (layer history/history → serving/replayer), want imports only to lower layers"},
		{name: "layering - timeline imports replayer (same layer, another row) - fail",
			imports: map[string][]string{"timeline": {"replayer/verbatim"}},
			want:    "got timeline importing replayer/verbatim (layer serving/timeline → serving/replayer)"},
		{name: "layering - an internal helper imports fuzz - fail",
			imports: map[string][]string{"internal/storm": {"fuzz/oracle"}},
			want:    "got internal/storm importing fuzz/oracle (layer base/internal → fuzzing/fuzz)"},
		{name: "layering - a package in no layer - fail",
			imports: map[string][]string{"newtop": {"history"}},
			want:    "got package newtop in no layer"},
		{name: "layering - the root module's packages - pass", imports: rootImports(t)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(Rows, tc.imports)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("got %v, want imports only to lower layers", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("got error %v, want one saying %q", err, tc.want)
			}
		})
	}
}

// TestRealTreeUsesEveryRow holds the table to the tree: a row no package
// falls in is stale (a package moved or gone).
func TestRealTreeUsesEveryRow(t *testing.T) {
	used := map[string]bool{}
	for pkg := range rootImports(t) {
		if r, ok := RowOf(Rows, pkg); ok {
			used[r.Prefix] = true
		}
	}
	for _, r := range Rows {
		if !used[r.Prefix] {
			t.Errorf("layering - row %s - has packages - pass: got none in it, want the row removed or its packages back", r.Prefix)
		}
	}
}
