package recorder

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"unsafe"
)

// Linux inode flag ioctls and the immutable flag (linux/fs.h).
const (
	fsIocGetFlags = 0x80086601
	fsIocSetFlags = 0x40086602
	fsImmutableFl = 0x10
)

// makeReadOnly makes dir refuse new files, and undoes it at cleanup. A
// mode of 0555 is enough for an ordinary user; root ignores it, so then
// the directory is made immutable (as chattr +i does). It reports false
// when neither works.
func makeReadOnly(t *testing.T, dir string) bool {
	t.Helper()
	if err := os.Chmod(dir, 0o555); err != nil {
		return false
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if !writable(dir) {
		return true
	}
	f, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer f.Close()
	var flags int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), fsIocGetFlags, uintptr(unsafe.Pointer(&flags))); e != 0 {
		return false
	}
	set := flags | fsImmutableFl
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, f.Fd(), fsIocSetFlags, uintptr(unsafe.Pointer(&set))); e != 0 {
		return false
	}
	t.Cleanup(func() {
		g, err := os.Open(dir)
		if err != nil {
			return
		}
		defer g.Close()
		syscall.Syscall(syscall.SYS_IOCTL, g.Fd(), fsIocSetFlags, uintptr(unsafe.Pointer(&flags)))
	})
	return !writable(dir)
}

func writable(dir string) bool {
	f, err := os.CreateTemp(dir, "probe")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(filepath.Join(dir, filepath.Base(f.Name())))
	return true
}
