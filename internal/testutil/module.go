package testutil

import (
	"os/exec"
	"strings"
	"testing"
)

// SelectedVersion returns the version of module the go command selects
// for the module under test ("v0.35.10" for k8s.io/client-go). That is
// what go.mod requires, or what a CI matrix copy selected with go get.
func SelectedVersion(t testing.TB, module string) string {
	t.Helper()
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", module).Output()
	if err != nil {
		t.Fatalf("go list -m %s: got error %v, want its version", module, err)
	}
	return strings.TrimSpace(string(out))
}

// ProxyUnreachable reports whether the go command's output says the
// module proxy could not be reached (tests that need it then skip
// loudly).
func ProxyUnreachable(out string) bool {
	for _, s := range []string{"dial tcp", "no such host", "connection refused", "i/o timeout", "TLS handshake timeout", "network is unreachable"} {
		if strings.Contains(out, s) {
			return true
		}
	}
	return false
}
