//go:build unix

package history

import (
	"os"
	"syscall"
)

// removeOpen removes an open file's name; the file lives while it is open
// or mapped.
func removeOpen(f *os.File) error { return os.Remove(f.Name()) }

// mapFile maps the first size bytes of f into memory, read-only, for the
// life of the process (objects point into it).
func mapFile(f *os.File, size int64) ([]byte, error) {
	if size == 0 {
		return []byte{}, nil
	}
	return syscall.Mmap(int(f.Fd()), 0, int(size), syscall.PROT_READ, syscall.MAP_SHARED)
}
