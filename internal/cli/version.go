package cli

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/lwreplay/lwreplay/fuzz/harness"
)

// runVersion prints lwreplay's version (its module's, "(devel)" for a
// build from a checkout), the client-go it embeds, and the Go toolchain.
func runVersion(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlags("version", stderr)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: version takes no arguments, got %q", errUsage, fs.Args())
	}
	version := "unknown"
	if info, ok := debug.ReadBuildInfo(); ok {
		version = info.Main.Version
	}
	fmt.Fprintf(stdout, "lwreplay %s\nclient-go %s\n%s\n", version, harness.ClientGoVersion(), runtime.Version())
	return nil
}
