package cli

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/api/resource"
)

// Every verb checks its flags and arguments with these before it does any
// work: loads a cassette, starts a server, connects to a cluster. So a
// mistake is a usage error (exit code 2) that costs nothing.

// nonEmpty returns a usage error for the first of the named string flags
// given with an empty value. Each takes a value when it is given.
func nonEmpty(fs *pflag.FlagSet, names ...string) error {
	for _, name := range names {
		if f := fs.Lookup(name); f != nil && f.Changed && f.Value.String() == "" {
			return fmt.Errorf("%w: --%s: got an empty value, want one (leave the flag out for its default)", errUsage, name)
		}
	}
	return nil
}

// checkOutput checks -o: a cassette file name ending in .yaml that is not
// a directory.
func checkOutput(path string) error {
	switch {
	case path == "":
		return fmt.Errorf("%w: -o FILE is required", errUsage)
	case !strings.HasSuffix(path, ".yaml") || filepath.Base(path) == ".yaml":
		return fmt.Errorf("%w: -o %s: a cassette file name must end in .yaml", errUsage, path)
	}
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return fmt.Errorf("%w: -o %s: is a directory, want a cassette file name", errUsage, path)
	}
	return nil
}

// checkAddr checks --addr: host:port with a port from 0 (any free one) to
// 65535. Whether the host can be listened on is for the listener to say.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w: --addr %q: %v (want host:port, such as 127.0.0.1:8080)", errUsage, addr, err)
	}
	if n, err := strconv.ParseUint(port, 10, 16); err != nil || n > 65535 {
		return fmt.Errorf("%w: --addr %q: port %q: want a number from 0 (any free port) to 65535", errUsage, addr, port)
	}
	return nil
}

// positiveQuantity reads a size flag: bytes, or a quantity such as 16Mi.
func positiveQuantity(name, value string) (int64, error) {
	q, err := resource.ParseQuantity(value)
	if err != nil || q.Sign() <= 0 {
		return 0, fmt.Errorf("%w: --%s %q: want a positive size such as 16777216 or 16Mi", errUsage, name, value)
	}
	n, ok := q.AsInt64()
	if !ok {
		return 0, fmt.Errorf("%w: --%s %q: want a whole number of bytes that fits in 64 bits", errUsage, name, value)
	}
	return n, nil
}

// notAnInput checks that the output file out is none of the input files
// (inputs: files and directories). Writing it would replace a recording
// before it is read.
func notAnInput(out string, inputs []string) error {
	st, err := os.Stat(out)
	if err != nil {
		return nil // a new file
	}
	for _, in := range inputs {
		if in == "" {
			continue
		}
		if inSt, err := os.Stat(in); err == nil && os.SameFile(st, inSt) {
			return fmt.Errorf("%w: -o %s: is the input cassette %s, want another file", errUsage, out, in)
		}
	}
	return nil
}
