// Command findingstable renders a findings × versions table from the JSON
// lines the findings' regression tests write (internal/testutil.RecordFinding).
// hack/findings.sh runs them once per client-go version;
// hack/operator-findings.sh runs the operators' once per operator and
// controller-runtime version, whose column is the case's Versions.
//
//	go run ./hack/findingstable FILE.jsonl > table.md
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/lwreplay/lwreplay/internal/testutil"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: findingstable FILE.jsonl")
		os.Exit(2)
	}
	if err := render(os.Args[1], os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "findingstable: %v\n", err)
		os.Exit(1)
	}
}

// row is one finding under one choice of gates.
type row struct{ finding, gates string }

func render(path string, w io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var rows []row
	var versions []string
	cells := map[row]map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		var fd testutil.Finding
		if err := json.Unmarshal(sc.Bytes(), &fd); err != nil {
			return fmt.Errorf("%s: line %d: %w", path, n, err)
		}
		// A gate the version does not have behaves as off: its row is the
		// off row, with a note.
		r := row{fd.Finding, strings.ReplaceAll(fd.Gates, "=absent", "=off")}
		if !slices.Contains(rows, r) {
			rows = append(rows, r)
			cells[r] = map[string]string{}
		}
		column := fd.ClientGo
		if fd.Versions != "" {
			column = fd.Versions
		}
		if !slices.Contains(versions, column) {
			versions = append(versions, column)
		}
		cells[r][column] = cell(fd)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	// client-go's bugs first, then the planted examples
	slices.SortStableFunc(rows, func(a, b row) int {
		return cmpBool(strings.HasPrefix(a.finding, "planted:"), strings.HasPrefix(b.finding, "planted:"))
	})
	fmt.Fprintf(w, "| finding | gates | %s |\n|---|---|%s\n", strings.Join(versions, " | "), strings.Repeat("---|", len(versions)))
	for _, r := range rows {
		var cs []string
		for _, v := range versions {
			c, ok := cells[r][v]
			if !ok {
				c = "— (not run)"
			}
			cs = append(cs, c)
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", r.finding, r.gates, strings.Join(cs, " | "))
	}
	return nil
}

// cell renders whether the finding reproduced: yes/no for one run, k of n
// runs otherwise, naming a gate the version does not have.
func cell(fd testutil.Finding) string {
	var c string
	switch {
	case fd.Runs == 1 && fd.Reproduced == 1:
		c = "yes"
	case fd.Runs == 1:
		c = "no"
	default:
		c = fmt.Sprintf("%d of %d runs", fd.Reproduced, fd.Runs)
	}
	var absent []string
	for _, g := range strings.Fields(fd.Gates) {
		if name, ok := strings.CutSuffix(g, "=absent"); ok {
			absent = append(absent, name)
		}
	}
	if len(absent) > 0 {
		c += " (no " + strings.Join(absent, ", ") + " gate)"
	}
	return c
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	default:
		return -1
	}
}
