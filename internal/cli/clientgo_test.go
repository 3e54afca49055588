package cli

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/lwreplay/lwreplay/fuzz/harness"
	"github.com/lwreplay/lwreplay/internal/testutil"
)

const watchListCassette = "../../cassettes/real-configmaps-pods-watchlist.yaml"

func TestClientGoFlagErrors(t *testing.T) {
	dir := t.TempDir()
	runErrorCases(t, []errorCase{
		{"fuzz --client-go - not a version - fail", []string{"fuzz", "--client-go", "banana", watchListCassette}, 2, "want v0.MINOR.PATCH"},
		{"fuzz --client-go - older than v0.35 - fail", []string{"fuzz", "--client-go", "v0.34.3", watchListCassette}, 2, "supports client-go v0.35 and newer"},
		{"mutate --client-go - a major version - fail", []string{"mutate", "--client-go", "v1.36.0", "--fault", "close-watch", "-o", filepath.Join(dir, "o.yaml"), watchListCassette}, 2, "want v0.MINOR.PATCH"},
		{"fuzz --client-go - other flags checked first - fail", []string{"fuzz", "--client-go", "v0.36.6", "--duration", "0s", watchListCassette}, 2, "--duration"},
	})
}

func TestClientGoNoToolchain(t *testing.T) {
	t.Setenv("PATH", t.TempDir()) // no go command
	other := "v0.36.6"
	if harness.ClientGoVersion() == other {
		other = "v0.37.2"
	}
	code, _, stderr := runCLI("fuzz", "--client-go", other, "--duration", "1s", watchListCassette)
	if code != 1 || !strings.Contains(stderr, "needs the go command on PATH") {
		t.Errorf("fuzz --client-go without go: got exit %d, stderr %q; want exit 1 naming the missing go command", code, stderr)
	}
}

func TestWithoutFlag(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
	}{
		{"without flag - separate value - pass", []string{"--client-go", "v0.36.6", "--duration", "1s", "a.yaml"}, []string{"--duration", "1s", "a.yaml"}},
		{"without flag - joined value - pass", []string{"a.yaml", "--client-go=v0.36.6"}, []string{"a.yaml"}},
		{"without flag - after -- kept - pass", []string{"--seed", "1", "--", "--client-go", "x"}, []string{"--seed", "1", "--", "--client-go", "x"}},
		{"without flag - a longer name kept - pass", []string{"--client-go-x=1"}, []string{"--client-go-x=1"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := withoutFlag(tc.args, "client-go"); !slices.Equal(got, tc.want) {
				t.Errorf("withoutFlag(%q): got %q, want %q", tc.args, got, tc.want)
			}
		})
	}
}

// TestClientGoFuzz runs the command: a fuzz campaign with another
// client-go, built by the go command from the module proxy.
func TestClientGoFuzz(t *testing.T) {
	if testing.Short() {
		t.Skip("builds lwreplay with another client-go: not in -short")
	}
	other := "v0.36.6"
	if harness.ClientGoVersion() == other {
		other = "v0.37.2"
	}
	artifacts := t.TempDir()
	code, out, stderr := runCLI("fuzz", "--client-go", other, "--duration", "3s", "--seed", "7", "--artifacts", artifacts, watchListCassette)
	if code == 1 && strings.Contains(stderr, "--client-go") && testutil.ProxyUnreachable(stderr) {
		t.Skipf("SKIPPED: the Go module proxy is unreachable: %s", stderr)
	}
	if code != 0 && code != 1 {
		t.Fatalf("fuzz --client-go %s: got exit %d, want 0 or 1 (findings)\nstdout %s\nstderr %s", other, code, out, stderr)
	}
	if want := "fuzz: client-go " + other + ","; !strings.Contains(out, want) {
		t.Errorf("fuzz header: got %q, want %q", firstLine(out), want)
	}
	reports, _ := filepath.Glob(filepath.Join(artifacts, "*", "report.txt"))
	if code == 1 && len(reports) == 0 {
		t.Errorf("reports: got none under %s, want one per failure (exit 1)", artifacts)
	}
	for _, r := range reports {
		data, err := os.ReadFile(r)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), "client-go: "+other+"\n") {
			t.Errorf("%s: got no line %q, want the client-go the run used", r, "client-go: "+other)
		}
	}
	t.Logf("fuzz --client-go %s: exit %d, %d reports", other, code, len(reports))

	code, _, stderr = runCLI("fuzz", "--client-go", "v0.36.99", "--duration", "1s", watchListCassette)
	if code != 1 || !strings.Contains(stderr, "client-go version not available") {
		t.Errorf("fuzz --client-go v0.36.99: got exit %d, stderr %q; want exit 1 saying the version is not available", code, stderr)
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
