package crtarget

import (
	"strings"
	"testing"
)

// TestKnownFindings checks that the known findings follow the
// controller-runtime the test binary is built with:
//   - the priority queue's shutdown leak (controller-runtime#3538) on v0.23
//     and v0.24, not on v0.25;
//   - the start-up spin (controller-runtime#3440) on all three.
func TestKnownFindings(t *testing.T) {
	v := controllerRuntimeVersion()
	if v == "unknown" {
		t.Fatal("controller-runtime version: got none from the build info, want one")
	}
	known := map[string]bool{}
	for _, k := range KnownFindings() {
		known[k.Name] = true
	}
	tests := []struct {
		name string
		want bool
	}{
		{"controller-runtime#3538", strings.HasPrefix(v, "v0.23.") || strings.HasPrefix(v, "v0.24.")},
		{"controller-runtime#3440", strings.HasPrefix(v, "v0.23.") || strings.HasPrefix(v, "v0.24.") || strings.HasPrefix(v, "v0.25.")},
	}
	for _, tc := range tests {
		t.Run("known findings - "+tc.name+" on controller-runtime "+v+" - pass", func(t *testing.T) {
			if known[tc.name] != tc.want {
				t.Errorf("%s known: got %v, want %v", tc.name, known[tc.name], tc.want)
			}
		})
	}
}
