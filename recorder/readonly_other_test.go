//go:build !linux

package recorder

import (
	"os"
	"testing"
)

// makeReadOnly makes dir refuse new files, and undoes it at cleanup; it
// reports false when the mode is not enough (running as root).
func makeReadOnly(t *testing.T, dir string) bool {
	t.Helper()
	if err := os.Chmod(dir, 0o555); err != nil {
		return false
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	f, err := os.CreateTemp(dir, "probe")
	if err != nil {
		return true
	}
	f.Close()
	os.Remove(f.Name())
	return false
}
