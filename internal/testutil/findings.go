package testutil

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
)

// FindingsEnv names a file the regression tests of lwreplay's findings
// append one JSON line per case to. hack/findings.sh sets it, once per
// client-go version, and renders the findings × versions table.
const FindingsEnv = "LWREPLAY_FINDINGS"

// Finding is one case of a finding's regression test, as run.
type Finding struct {
	// Finding names the finding, as docs/client-go-versions.md's table does.
	Finding string `json:"finding"`
	// ClientGo is the client-go version the test ran with.
	ClientGo string `json:"client_go"`
	// Versions, when set, names the versions the case ran with that its
	// table's column is: an operator's finding runs across the operator's
	// and controller-runtime's versions ("kuberay v1.5.0,
	// controller-runtime v0.25.2"), not client-go's alone.
	Versions string `json:"versions,omitempty"`
	// Gates are the gates that select the case, as the run had them:
	// "WatchListClient=on AtomicFIFO=off".
	Gates string `json:"gates"`
	// Reproduced is how many of Runs showed the finding.
	Reproduced int `json:"reproduced"`
	Runs       int `json:"runs"`
}

// GatesOf renders the named gates of a run's effective gates, in the
// order named; a gate the run's client-go does not know shows as "absent".
func GatesOf(gates map[string]bool, names ...string) string {
	var s []string
	for _, n := range names {
		v, ok := gates[n]
		switch {
		case !ok:
			s = append(s, n+"=absent")
		case v:
			s = append(s, n+"=on")
		default:
			s = append(s, n+"=off")
		}
	}
	return strings.Join(s, " ")
}

// FindingsWanted reports whether the run collects findings (FindingsEnv
// is set). Tests then run their fixed number of runs, instead of
// stopping at the first that shows what they look for.
func FindingsWanted() bool { return os.Getenv(FindingsEnv) != "" }

var findingsMu sync.Mutex

// RecordFinding appends f to the file FindingsEnv names, if set.
func RecordFinding(t testing.TB, f Finding) {
	t.Helper()
	path := os.Getenv(FindingsEnv)
	if path == "" {
		return
	}
	line, err := json.Marshal(f)
	if err != nil {
		t.Fatalf("finding %s: %v", f.Finding, err)
	}
	findingsMu.Lock()
	defer findingsMu.Unlock()
	file, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatalf("%s: %v", FindingsEnv, err)
	}
	if _, err := fmt.Fprintf(file, "%s\n", line); err != nil {
		t.Errorf("%s: %v", FindingsEnv, err)
	}
	if err := file.Close(); err != nil {
		t.Errorf("%s: %v", FindingsEnv, err)
	}
}
