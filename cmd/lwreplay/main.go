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
// Each verb is a thin flag layer over the library packages (internal/cli).
// It checks every flag before any work and exits 2 for a usage error, 1 for
// a failure. This lwreplay has no actors: `serve --actors` needs the one of
// the actors module (github.com/lwreplay/lwreplay/actors/cmd/lwreplay).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/lwreplay/lwreplay/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := cli.Run(ctx, os.Args[1:], os.Stdout, os.Stderr, cli.Options{})
	stop()
	os.Exit(code)
}
