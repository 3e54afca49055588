//go:debug randseednop=0

// Command lwreplay records Kubernetes list/watch traffic into cassettes and
// replays it from a model kube-apiserver.
//
//	lwreplay serve CASSETTE... [--addr 127.0.0.1:0] [--write-kubeconfig PATH] [--pace max|recorded|<f>x]
//	lwreplay inspect CASSETTE... [--json]
//	lwreplay mutate CASSETTE... (--fault F... | --plan FILE) -o OUT [--timeout 2m] [--client-go V]
//	lwreplay synth --objects N --events M --seed S [--max-memory 4Gi] -o FILE
//	lwreplay record --resource R[,R...] -o FILE [--kubeconfig PATH] [--context NAME] [-n NS | -A] [--duration D] ...
//	lwreplay fuzz CASSETTE... [--target T] [--resource R[,R...]] [--duration 60s] [--seed N]
//	                         [--artifacts DIR] [--level typed|wire] [--watchlist auto|on|off] [--breaking] [--parallel N]
//	                         [--client-go V]
//
// Each verb is a thin flag layer over the library packages. It checks every
// flag before any work and exits 2 for a usage error (errUsage), 1 for a
// failure.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"
)

type verb struct {
	name  string
	usage string
	run   func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var verbs = []verb{
	{"serve", "serve CASSETTE... — answer LIST/WATCH from recorded cassettes over HTTPS", runServe},
	{"inspect", "inspect CASSETTE... — describe what cassettes hold", runInspect},
	{"mutate", "mutate CASSETTE... --fault F|--plan FILE -o OUT — write the perturbed traffic as a reproducer cassette", runMutate},
	{"synth", "synth -o FILE — write a synthetic cassette of pods and configmaps", runSynth},
	{"record", "record --resource R[,R...] -o FILE — record a cluster's list/watch traffic through client-go informers", runRecord},
	{"fuzz", "fuzz CASSETTE... [--target T] [--duration D] [--seed N] — fuzz client-go code against fault plans, saving a report per failure", runFuzz},
	{"version", "version — print lwreplay's version and the client-go it embeds", runVersion},
}

// errUsage marks errors whose message is a usage hint.
var errUsage = errors.New("usage")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, v := range verbs {
		if v.name == args[0] {
			err := v.run(ctx, args[1:], stdout, stderr)
			var code exitCode
			switch {
			case err == nil, errors.Is(err, pflag.ErrHelp):
				return 0
			case errors.As(err, &code):
				return int(code)
			case errors.Is(err, errUsage):
				fmt.Fprintf(stderr, "lwreplay %s: %v\n", v.name, err)
				return 2
			default:
				fmt.Fprintf(stderr, "lwreplay %s: %v\n", v.name, err)
				return 1
			}
		}
	}
	fmt.Fprintf(stderr, "lwreplay: unknown command %q\n", args[0])
	printUsage(stderr)
	return 2
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "usage: lwreplay <command> [flags]")
	for _, v := range verbs {
		fmt.Fprintf(w, "  %s\n", v.usage)
	}
}

// newFlags returns a flag set that reports errors instead of exiting.
func newFlags(name string, stderr io.Writer) *pflag.FlagSet {
	fs := pflag.NewFlagSet("lwreplay "+name, pflag.ContinueOnError)
	fs.SetOutput(stderr)
	return fs
}

// parse parses args, turning flag errors into usage errors.
func parse(fs *pflag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return nil
}
