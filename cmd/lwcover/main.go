// Command lwcover is a go -toolexec wrapper. It keeps go test -fuzz's
// coverage counters to the packages a fuzzer learns from: by default,
// those of the module go test runs in. Without it, every package counts
// coverage, the Kubernetes client's JSON decoding and lwreplay's replay
// included, and each run pays for them.
//
//	go install github.com/lwreplay/lwreplay/cmd/lwcover
//	go test -fuzz FuzzMyController -toolexec lwcover
//	go test -fuzz FuzzMyController -toolexec "lwcover --cover module,sigs.k8s.io/controller-runtime/..."
//
// --cover takes "module", "all" (go test's own choice) or import-path
// patterns, comma-separated. docs/fuzzing.md says when to widen it.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	"github.com/spf13/pflag"

	"github.com/lwreplay/lwreplay/internal/fuzzcover"
)

func main() {
	fs := pflag.NewFlagSet("lwcover", pflag.ContinueOnError)
	fs.SetInterspersed(false)
	cover := fs.String("cover", fuzzcover.DefaultScope, `packages that keep coverage counters: "module", "all" or import-path patterns, comma-separated`)
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	scope, err := fuzzcover.ParseScope(*cover)
	if err != nil {
		fmt.Fprintf(os.Stderr, "lwcover: --cover: %v\n", err)
		os.Exit(2)
	}
	wd, err := os.Getwd()
	if err != nil {
		fmt.Fprintf(os.Stderr, "lwcover: %v\n", err)
		os.Exit(1)
	}
	var tool fuzzcover.Tool
	if rest := fs.Args(); len(rest) > 0 {
		tool = fuzzcover.Tool{Path: rest[0], Args: rest[1:], ImportPath: os.Getenv("TOOLEXEC_IMPORTPATH")}
	}
	env := fuzzcover.Env{ModuleDir: fuzzcover.FindModuleDir(wd)}
	err = fuzzcover.Run(scope, env, tool, os.Stdin, os.Stdout, os.Stderr)
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		os.Exit(exit.ExitCode())
	case err != nil:
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
}
