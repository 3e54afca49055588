// Package cli is the lwreplay command. cmd/lwreplay runs it with no actors. The actors
// module's cmd/lwreplay (github.com/lwreplay/lwreplay/actors/cmd/lwreplay) runs it with the
// cluster's own controllers (Options.Actors). `lwreplay serve --actors` starts them beside
// the replay.
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
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/pflag"

	"github.com/lwreplay/lwreplay/actor"
)

// Options are what a binary built on the CLI adds to it.
type Options struct {
	// Actors are the actors `serve --actors` may start (nil: none; the
	// flag then says where the binary that has them is).
	Actors *actor.Registry
}

// Run runs the lwreplay command line args (without the program name),
// and returns its exit code. That is 0, 1 for a failure, or 2 for a
// usage error.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) int {
	return runWith(ctx, args, stdout, stderr, o)
}

type verb struct {
	name  string
	usage string
	run   func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var verbs = verbsFor(Options{})

// verbsFor returns the verbs, serve with o's actors.
func verbsFor(o Options) []verb {
	return []verb{
		{"serve", "serve CASSETTE... — answer LIST/WATCH from recorded cassettes over HTTPS", func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			return runServeWith(ctx, args, stdout, stderr, o)
		}},
		{"inspect", "inspect CASSETTE... — describe what cassettes hold", runInspect},
		{"mutate", "mutate CASSETTE... --fault F|--plan FILE -o OUT — write the perturbed traffic as a reproducer cassette", runMutate},
		{"synth", "synth -o FILE — write a synthetic cassette of pods and configmaps", runSynth},
		{"record", "record --resource R[,R...] -o FILE — record a cluster's list/watch traffic through client-go informers", runRecord},
		{"fuzz", "fuzz CASSETTE... [--target T] [--duration D] [--seed N] — fuzz client-go code against fault plans, saving a report per failure", runFuzz},
		{"version", "version — print lwreplay's version and the client-go it embeds", runVersion},
	}
}

// errUsage marks errors whose message is a usage hint.
var errUsage = errors.New("usage")

// run is Run without actors.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runWith(ctx, args, stdout, stderr, Options{})
}

// runWith is Run.
func runWith(ctx context.Context, args []string, stdout, stderr io.Writer, o Options) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, v := range verbsFor(o) {
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
