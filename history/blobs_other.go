//go:build !unix

package history

import (
	"io"
	"os"
)

// removeOpen leaves the file: where an open file's name cannot be removed,
// mapFile removes it after reading it back.
func removeOpen(*os.File) error { return nil }

// mapFile reads f back into memory (this platform maps no files), and
// removes it.
func mapFile(f *os.File, size int64) ([]byte, error) {
	defer os.Remove(f.Name())
	data := make([]byte, size)
	_, err := io.ReadFull(io.NewSectionReader(f, 0, size), data)
	return data, err
}
