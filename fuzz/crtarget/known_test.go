package crtarget

import (
	"strings"
	"testing"
)

// TestKnownFindings checks that the known findings follow the
// controller-runtime the test binary is built with: the priority queue's
// shutdown leak (controller-runtime#3538) on v0.23 and v0.24, not on v0.25.
func TestKnownFindings(t *testing.T) {
	v := controllerRuntimeVersion()
	if v == "unknown" {
		t.Fatal("controller-runtime version: got none from the build info, want one")
	}
	got := false
	for _, k := range KnownFindings() {
		got = got || k.Name == "controller-runtime#3538"
	}
	want := strings.HasPrefix(v, "v0.23.") || strings.HasPrefix(v, "v0.24.")
	t.Run("known findings - controller-runtime "+v+" - pass", func(t *testing.T) {
		if got != want {
			t.Errorf("controller-runtime#3538 known: got %v, want %v", got, want)
		}
	})
}
